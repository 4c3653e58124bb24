import assert from "node:assert/strict";
import { renderChart, type Chart } from "../../../bench/lib/svgChart";
import { simChart } from "../../../bench/lib/simChart";
import type { Table } from "../../../bench/lib/result";

/**
 * The problems of `xml` as XML: every tag closed in order, attributes quoted, `&` only in an
 * entity, no `<` in text; one root element. Empty when it is well-formed.
 */
function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  let roots = 0;
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, "");
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const m of body.matchAll(token)) {
    const [, close, name, , selfClose, textPart, stray] = m;
    if (stray !== undefined) problems.push(`a stray < or malformed tag at ${m.index}`);
    else if (textPart !== undefined) {
      if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(textPart)) problems.push(`a bare & in ${textPart}`);
      if (stack.length === 0 && textPart.trim() !== "") problems.push("text outside the root");
    } else if (close) {
      if (stack.pop() !== name) problems.push(`</${name}> closes the wrong element`);
    } else {
      if (stack.length === 0) roots += 1;
      if (!selfClose) stack.push(name);
    }
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(", ")}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

const paths = (svg: string) => svg.match(/<path\b/g)?.length ?? 0;

function chart(panels: number, series: number): Chart {
  const line = (i: number) => ({
    label: `series ${i} <&>`,
    color: "#123456",
    ...(i === 0 ? { dash: "7 5" } : {}),
    points: [2_500, 5_000, 20_000, 100_000].map((x, j) => ({ x, y: (i + j) / 10 })),
  });
  return {
    title: 'A "chart" & more',
    xLabel: "N",
    yLabel: "share",
    xTicks: [2_500, 5_000, 20_000, 100_000],
    panels: Array.from({ length: panels }, (_, p) => ({
      title: `panel ${p}`,
      series: Array.from({ length: series }, (__, i) => line(i)),
      marks: [{ x: 5_000, y: 0.75, color: "#333" }],
    })),
    extraLegend: [{ label: "target", color: "#333", mark: true }],
    notes: ["a note < 1"],
  };
}

/** A table as bench/windowsSim.ts prints it: `shares[shape]` per scenario at each N. */
function table(shares: Record<string, number>): Table {
  const header = ["distribution", "account", "run IDs", "N", "time s", "share", "target"];
  const rows: string[][] = [];
  for (const n of [2_500, 20_000]) {
    rows.push([
      "sequential drain, `concurrency: 1`",
      "any",
      "any",
      n.toLocaleString("en-US"),
      "1",
      "0.188",
      "",
    ]);
    for (const d of ["evenly over the last 3 days", "a one-second outage 2 hours ago"])
      for (const [shape, share] of Object.entries(shares))
        rows.push([d, "payg", shape, n.toLocaleString("en-US"), "1", `${share} (q25 0.1; 0.1–0.9)`, "0.85"]);
  }
  return { title: "t", header, rows };
}

describe("the benches' SVG chart (bench/lib/svgChart.ts, bench/lib/simChart.ts)", () => {
  it("is well-formed XML with one path per series, text escaped", () => {
    for (const [panels, series] of [
      [1, 7],
      [4, 3],
    ]) {
      const svg = renderChart(chart(panels, series));
      assert.deepEqual(xmlProblems(svg), []);
      assert.equal(paths(svg), panels * series);
      assert.match(svg, /series 1 &lt;&amp;&gt;/);
      assert.match(svg, /stroke-dasharray="7 5"/);
    }
  });

  it("the checker itself finds unclosed and misnested tags", () => {
    assert.notDeepEqual(xmlProblems("<svg><g></svg>"), []);
    assert.notDeepEqual(xmlProblems("<svg><text>a & b</text></svg>"), []);
    assert.deepEqual(xmlProblems('<svg><g a="1"/></svg>'), []);
  });

  it("draws one panel, one line per scenario and the sequential loop, when the ID shapes agree", () => {
    const c = simChart(table({ sdk: 0.5, app: 0.5, hex: 0.5 }), ["conditions"]);
    assert.equal(c.panels.length, 1);
    assert.deepEqual(
      c.panels[0].series.map((s) => [s.label, s.points.length, s.dash]),
      [
        ["even spread, 3 days", 2, undefined],
        ["one-second outage, 2 h ago", 2, undefined],
        ["sequential loop (concurrency: 1)", 2, "7 5"],
      ],
    );
    assert.match(c.notes[0], /sdk, app, hex: the same median/);
    assert.equal(paths(renderChart(c)), 3);
    assert.deepEqual(xmlProblems(renderChart(c)), []);
  });

  it("draws a panel per ID shape when their shares differ", () => {
    const c = simChart(table({ sdk: 0.5, app: 0.4 }), []);
    assert.deepEqual(
      c.panels.map((p) => p.title),
      ["run IDs: sdk", "run IDs: app"],
    );
    assert.deepEqual(
      c.panels[1].series[1].points.map((p) => p.y),
      [0.4, 0.4],
    );
    assert.equal(paths(renderChart(c)), 6);
  });
});
