import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The emulator's source folder. */
const EMULATOR_DIR = path.join(__dirname, "..", "..", "..", "emulator");

/**
 * Every module specifier a TypeScript source names: `import … from`, `export … from`, bare
 * `import "…"`, `import("…")` and `require("…")`, type-only imports included.
 *
 * @param source - the file's text.
 */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]);
  return found;
}

/**
 * The import graph of the emulator: module name (file name without `.ts`) to the emulator
 * modules it imports, and the outside specifiers it uses.
 */
function emulatorGraph(): { edges: Map<string, Set<string>>; outside: Map<string, string[]> } {
  const edges = new Map<string, Set<string>>();
  const outside = new Map<string, string[]>();
  for (const file of readdirSync(EMULATOR_DIR).filter((f) => f.endsWith(".ts"))) {
    const name = file.slice(0, -3);
    const targets = new Set<string>();
    for (const spec of specifiersOf(readFileSync(path.join(EMULATOR_DIR, file), "utf8"))) {
      if (spec.startsWith("./")) targets.add(spec.slice(2).replace(/\.ts$/, ""));
      else outside.set(name, [...(outside.get(name) ?? []), spec]);
    }
    edges.set(name, targets);
  }
  return { edges, outside };
}

/**
 * The first import cycle found, as a path `a → b → … → a`, or undefined.
 *
 * @param edges - the graph.
 */
function findCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    if (onStack.has(node)) return [...stack.slice(stack.indexOf(node)), node];
    if (done.has(node)) return undefined;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    onStack.delete(node);
    done.add(node);
    return undefined;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

describe("emulator import graph", () => {
  it("the specifier reader sees type-only, multi-line and re-export imports", () => {
    const source = [
      'import type { A } from "./a";',
      "import {\n  B,\n  C,\n} from './b';",
      'export { D } from "./d";',
      'export type { E } from "./e";',
      'import "./f";',
    ].join("\n");
    assert.deepEqual(specifiersOf(source).sort(), ["./a", "./b", "./d", "./e", "./f"]);
  });

  it("the cycle finder reports a cycle and accepts a tree", () => {
    const cyclic = new Map([
      ["v2", new Set(["resume-endpoint"])],
      ["resume-endpoint", new Set(["v2"])],
    ]);
    assert.deepEqual(findCycle(cyclic), ["v2", "resume-endpoint", "v2"]);
    assert.equal(
      findCycle(
        new Map([
          ["a", new Set(["b"])],
          ["b", new Set<string>()],
        ]),
      ),
      undefined,
    );
  });

  it("has no import cycle, counting type-only imports (which eslint's no-cycle ignores)", () => {
    const { edges } = emulatorGraph();
    assert.ok(edges.size > 20, `expected the emulator's modules, found ${edges.size}`);
    const cycle = findCycle(edges);
    assert.equal(cycle, undefined, `import cycle: ${cycle?.join(" → ")}`);
  });

  it("every relative import names an emulator module that exists", () => {
    const { edges } = emulatorGraph();
    for (const [from, targets] of edges) {
      for (const target of targets) assert.ok(edges.has(target), `${from} imports missing ./${target}`);
    }
  });

  it("imports only Node built-ins from outside (independent of client/ and components/)", () => {
    const { outside } = emulatorGraph();
    for (const [from, specs] of outside) {
      for (const spec of specs) assert.match(spec, /^node:/, `${from}.ts imports ${spec}`);
    }
  });
});
