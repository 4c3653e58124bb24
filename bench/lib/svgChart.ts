/**
 * A hand-written SVG line chart for the benches (no dependency): one or more panels side by side,
 * each with a log-scale x axis and a linear y axis from 0 to 1, one `<path>` per series (axes,
 * ticks, legend swatches and marks are `<line>`s, so a reader or a test can count the series),
 * a legend and notes on the right.
 */

/** One line of a panel. */
export interface Series {
  label: string;
  /** A CSS colour. */
  color: string;
  /** `stroke-dasharray`, e.g. "6 4"; solid when absent. */
  dash?: string;
  points: { x: number; y: number }[];
}

/** A small mark at a point (a target): a short horizontal tick. */
export interface Mark {
  x: number;
  y: number;
  color: string;
  /** `stroke-dasharray` of the tick; solid when absent. */
  dash?: string;
}

/** One plot of a chart. */
export interface Panel {
  title: string;
  series: Series[];
  marks: Mark[];
}

/** A whole chart. */
export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** The x values with a tick and a label. */
  xTicks: number[];
  panels: Panel[];
  /** Legend entries beyond the first panel's series, e.g. what a mark means. */
  extraLegend: { label: string; color: string; dash?: string; mark?: boolean }[];
  /** Lines of text under the legend. */
  notes: string[];
}

const PANEL_W = 400;
const PANEL_H = 300;
const MARGIN = { left: 56, top: 64, bottom: 48, gap: 40 };
const LEGEND_W = 320;
const FONT = `font-family="Helvetica, Arial, sans-serif"`;

/** `&`, `<`, `>` and `"` as XML entities. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function text(x: number, y: number, s: string, attrs = ""): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${FONT} ${attrs}>${escapeXml(s)}</text>`;
}

function line(x1: number, y1: number, x2: number, y2: number, attrs: string): string {
  return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" ${attrs}/>`;
}

/** The pixel scales of a panel whose top-left corner is at (`left`, `top`). */
function scalesOf(chart: Chart, left: number, top: number) {
  const lo = Math.log10(Math.min(...chart.xTicks)) - 0.15;
  const hi = Math.log10(Math.max(...chart.xTicks)) + 0.15;
  return {
    x: (v: number) => left + ((Math.log10(v) - lo) / (hi - lo)) * PANEL_W,
    y: (v: number) => top + (1 - Math.min(1, Math.max(0, v))) * PANEL_H,
  };
}

/** The frame of a panel: grid, axes, tick labels, axis titles and the panel's title. */
function frame(chart: Chart, panel: Panel, left: number, top: number): string[] {
  const s = scalesOf(chart, left, top);
  const out: string[] = [];
  for (let i = 0; i <= 10; i++) {
    const y = s.y(i / 10);
    out.push(line(left, y, left + PANEL_W, y, `stroke="#e5e5e5" stroke-width="1"`));
    if (i % 2 === 0) out.push(text(left - 6, y + 4, (i / 10).toFixed(1), `font-size="11" text-anchor="end"`));
  }
  for (const v of chart.xTicks) {
    const x = s.x(v);
    out.push(line(x, top, x, top + PANEL_H, `stroke="#e5e5e5" stroke-width="1"`));
    out.push(text(x, top + PANEL_H + 16, v.toLocaleString("en-US"), `font-size="11" text-anchor="middle"`));
  }
  out.push(line(left, top + PANEL_H, left + PANEL_W, top + PANEL_H, `stroke="#333" stroke-width="1"`));
  out.push(line(left, top, left, top + PANEL_H, `stroke="#333" stroke-width="1"`));
  out.push(text(left + PANEL_W / 2, top + PANEL_H + 36, chart.xLabel, `font-size="12" text-anchor="middle"`));
  const yMid = top + PANEL_H / 2;
  out.push(
    text(
      left - 40,
      yMid,
      chart.yLabel,
      `font-size="12" text-anchor="middle" transform="rotate(-90 ${left - 40} ${yMid})"`,
    ),
  );
  out.push(text(left, top - 10, panel.title, `font-size="13" font-weight="bold"`));
  return out;
}

/** A panel's series (one `<path>` each, with a dot per point) and marks. */
function plot(chart: Chart, panel: Panel, left: number, top: number): string[] {
  const s = scalesOf(chart, left, top);
  const out: string[] = [];
  for (const m of panel.marks) {
    const x = s.x(m.x);
    const y = s.y(m.y);
    const dash = m.dash ? ` stroke-dasharray="${m.dash}"` : "";
    out.push(line(x - 10, y, x + 10, y, `stroke="${m.color}" stroke-width="2.5"${dash}`));
  }
  for (const series of panel.series) {
    const pts = [...series.points].sort((a, b) => a.x - b.x);
    const d = pts
      .map((p, i) => `${i === 0 ? "M" : "L"}${s.x(p.x).toFixed(1)},${s.y(p.y).toFixed(1)}`)
      .join(" ");
    const dash = series.dash ? ` stroke-dasharray="${series.dash}"` : "";
    out.push(
      `<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2"${dash}><title>${escapeXml(series.label)}</title></path>`,
    );
    for (const p of pts)
      out.push(
        `<circle cx="${s.x(p.x).toFixed(1)}" cy="${s.y(p.y).toFixed(1)}" r="2.5" fill="${series.color}"/>`,
      );
  }
  return out;
}

/** The legend (the first panel's series, then the extra entries) and the notes, at `left`. */
function legend(chart: Chart, left: number, top: number): string[] {
  const out: string[] = [];
  const items = [...(chart.panels[0]?.series ?? []), ...chart.extraLegend];
  let y = top + 4;
  for (const item of items) {
    const mark = "mark" in item && item.mark === true;
    const dash = item.dash ? ` stroke-dasharray="${item.dash}"` : "";
    const width = mark ? 2.5 : 2;
    const [x1, x2] = mark ? [left + 2, left + 22] : [left, left + 24];
    out.push(line(x1, y, x2, y, `stroke="${item.color}" stroke-width="${width}"${dash}`));
    out.push(text(left + 32, y + 4, item.label, `font-size="12"`));
    y += 20;
  }
  y += 10;
  for (const note of chart.notes) {
    out.push(text(left, y, note, `font-size="11" fill="#444"`));
    y += 16;
  }
  return out;
}

/** The chart as a standalone SVG document. */
export function renderChart(chart: Chart): string {
  const panelsW = chart.panels.length * (MARGIN.left + PANEL_W) + (chart.panels.length - 1) * MARGIN.gap;
  const width = panelsW + MARGIN.gap + LEGEND_W;
  const height = MARGIN.top + PANEL_H + MARGIN.bottom + 10;
  const body: string[] = [
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    text(MARGIN.left, 24, chart.title, `font-size="15" font-weight="bold"`),
  ];
  chart.panels.forEach((panel, i) => {
    const left = MARGIN.left + i * (MARGIN.left + PANEL_W + MARGIN.gap);
    body.push(...frame(chart, panel, left, MARGIN.top), ...plot(chart, panel, left, MARGIN.top));
  });
  body.push(...legend(chart, panelsW + MARGIN.gap, MARGIN.top));
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title>${escapeXml(chart.title)}</title>`,
    ...body,
    `</svg>`,
    "",
  ].join("\n");
}
