/**
 * The function-length check of `npm run check`: no function, method, constructor or arrow
 * function of the product folders or of the tooling (the toolchain, including the Node.js
 * language host written in JavaScript, the scripts and the benches) is longer than
 * {@link MAX_FUNCTION_LINES} lines (from its first line to its closing brace, its doc comment not
 * counted). Exits 1 naming each one. TypeScript and JavaScript files alike: the compiler API
 * parses both.
 *
 * Usage: `node -r ts-node/register/transpile-only scripts/check-function-length.ts` checks
 * {@link CHECKED_FOLDERS}, with {@link KNOWN_LONG_FUNCTIONS} allowed; `... --root DIR FOLDER...`
 * checks the folders of DIR with no exception (the check's own test).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

/** The longest a function may be, in lines. */
export const MAX_FUNCTION_LINES = 80;

/** The folders the check covers by default. */
export const PRODUCT_FOLDERS = [
  "components",
  "dynamic",
  "client",
  "drain",
  "core",
  "policies",
  "provider",
  "emulator",
] as const;

/**
 * The tooling folders the check covers too: the code that builds, runs and measures the product
 * is held to the same rules.
 */
export const TOOLING_FOLDERS = ["toolchain", "scripts", "bench"] as const;

/** Every folder the check covers by default. */
export const CHECKED_FOLDERS: readonly string[] = [...PRODUCT_FOLDERS, ...TOOLING_FOLDERS];

/**
 * Functions known to be too long, each being shortened by another change: `file:name`. The ONLY
 * place an exception may be written. An entry that is no longer too long fails the check too, so
 * the list empties as the functions are fixed; it is meant to be empty.
 */
export const KNOWN_LONG_FUNCTIONS: readonly string[] = [];

/** A function over the limit. */
export interface LongFunction {
  /** `file:name`, the file relative to the folder the check ran in. */
  readonly key: string;
  readonly lines: number;
  /** 1-based line where it starts. */
  readonly line: number;
}

function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  const own = named.name && ts.isIdentifier(named.name) ? named.name.text : undefined;
  if (ts.isConstructorDeclaration(node)) return `${classNameOf(node)}.constructor`;
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    return `${classNameOf(node)}.${named.name?.getText() ?? "<method>"}`;
  }
  if (own) return own;
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    ts.isIdentifier(parent.name)
  ) {
    return parent.name.text;
  }
  return "<anonymous>";
}

function classNameOf(node: ts.Node): string {
  const c = node.parent as ts.ClassLikeDeclaration | ts.ObjectLiteralExpression;
  return ts.isClassLike(c) && c.name ? c.name.text : "<object>";
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  );
}

/** The functions of one source text longer than `max` lines. */
export function longFunctionsIn(file: string, text: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ key: `${file}:${nameOf(node)}`, lines, line: start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory() && e.name !== "node_modules") out.push(...sourceFiles(root, rel));
    else if (e.isFile() && /\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** What the check finds in `folders` of `root`: the functions too long, and exceptions no longer needed. */
export function checkFunctionLength(
  root: string,
  folders: readonly string[],
  allowed: readonly string[],
): { tooLong: LongFunction[]; stale: string[] } {
  const all = folders.flatMap((d) =>
    sourceFiles(root, d).flatMap((f) => longFunctionsIn(f, fs.readFileSync(path.join(root, f), "utf8"))),
  );
  const tooLong = all.filter((f) => !allowed.includes(f.key));
  const stale = allowed.filter((k) => !all.some((f) => f.key === k));
  return { tooLong, stale };
}

function main(argv: string[]): number {
  const custom = argv[0] === "--root";
  const root = custom ? path.resolve(argv[1]) : path.resolve(__dirname, "..");
  const { tooLong, stale } = checkFunctionLength(
    root,
    custom ? argv.slice(2) : CHECKED_FOLDERS,
    custom ? [] : KNOWN_LONG_FUNCTIONS,
  );
  for (const f of tooLong) {
    console.error(
      `${f.key.replace(/:.*/, "")}:${f.line}: function \`${f.key.replace(/^[^:]*:/, "")}\` is ${f.lines} lines; ` +
        `at most ${MAX_FUNCTION_LINES} (split it: see CONTRIBUTING.md, Size).`,
    );
  }
  for (const k of stale) {
    console.error(
      `${k}: listed in KNOWN_LONG_FUNCTIONS (scripts/check-function-length.ts) but no longer over ` +
        `${MAX_FUNCTION_LINES} lines (or gone): remove it from the list.`,
    );
  }
  return tooLong.length + stale.length === 0 ? 0 : 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
