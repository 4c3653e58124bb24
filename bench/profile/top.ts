/**
 * Prints the functions with the most self time in a `.cpuprofile` (V8 CPU profile), grouped by
 * function and file, and the total time under each of a few entry points of interest.
 *
 *   node -r ts-node/register/transpile-only bench/profile/top.ts <file.cpuprofile> [rows]
 */
import * as fs from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const file = process.argv[2];
const rows = Number(process.argv[3] ?? 30);
const prof = JSON.parse(fs.readFileSync(file, "utf8")) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
prof.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const key = (n: Node): string =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*\/main\//, "")}:${n.callFrame.lineNumber + 1}`;
const self = new Map<string, number>();
for (const [id, us] of selfUs) {
  const k = key(byId.get(id)!);
  self.set(k, (self.get(k) ?? 0) + us);
}
// Inclusive time per function (counted once per stack).
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = key(byId.get(cur)!);
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + us);
  }
}
const per = Number(process.env.PER ?? 1);
const pct = (us: number) =>
  `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000 / per).toFixed(2).padStart(8)} ms`;
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms\n\nself time:`);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${pct(us)}  ${k}`);
console.log("\ninclusive time (project files):");
for (const [k, us] of [...incl]
  .filter(([k]) => /client\/|components\/|bench\//.test(k))
  .sort((a, b) => b[1] - a[1])
  .slice(0, rows))
  console.log(`${pct(us)}  ${k}`);
