/**
 * The file-size check of `npm run check`: a source file (`.ts`, `.js`, `.sh`, `.go`) of more
 * than {@link MAX_FILE_LINES} lines must say why it is not split, in a comment line within its
 * first {@link REASON_WITHIN_LINES} lines: `// size: <reason>` (`# size: <reason>` in shell).
 * A long file is then a decision someone wrote down, not an accident. Exits 1 naming each file
 * without a reason.
 *
 * Which files: those git knows of (tracked, or new and not ignored) under the root, except the
 * generated SDKs (`sdk/`), `node_modules/` and `dist/`. Outside a git work tree (the check's own
 * test) every file under the root is read.
 *
 * Usage: `node -r ts-node/register/transpile-only scripts/check-file-size.ts` checks the
 * repository; `... --root DIR` checks DIR (the check's own test).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The most lines a source file may have without a written reason. */
export const MAX_FILE_LINES = 400;

/** The reason line must be one of a file's first this many lines (room for a shebang). */
export const REASON_WITHIN_LINES = 3;

/** File name endings the check covers. */
const SOURCE = /\.(ts|js|sh|go)$/;

/** Paths the check skips: generated SDKs, installed packages, build output. */
const SKIPPED = /^(sdk\/|dist\/)|(^|\/)node_modules\//;

/** A file over the limit without a reason. */
export interface UnexplainedFile {
  /** Relative to the root, with `/`. */
  readonly file: string;
  readonly lines: number;
}

/** Lines of a text as `wc -l` counts them (a last line without a newline counts too). */
export function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Whether the text's first lines hold a `size:` reason, in the comment syntax of `file`. */
export function hasSizeReason(file: string, text: string): boolean {
  const marker = file.endsWith(".sh") ? /^#\s*size:\s*\S/ : /^\/\/\s*size:\s*\S/;
  return text.split("\n", REASON_WITHIN_LINES).some((line) => marker.test(line.trim()));
}

function walk(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory() && !e.name.startsWith(".")) out.push(...walk(root, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** The files of `root` the check reads: git's list in a work tree, else every file. */
export function candidateFiles(root: string): string[] {
  const git = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  const inRepo = fs.existsSync(path.join(root, ".git")) && git.status === 0;
  const files = inRepo ? git.stdout.split("\0").filter((f) => f !== "") : walk(root, "");
  return [...new Set(files)].filter((f) => SOURCE.test(f) && !SKIPPED.test(f)).sort();
}

/** The files of `root` over {@link MAX_FILE_LINES} lines that do not say why. */
export function checkFileSize(root: string): UnexplainedFile[] {
  const found: UnexplainedFile[] = [];
  for (const file of candidateFiles(root)) {
    const full = path.join(root, file);
    if (!fs.existsSync(full)) continue; // deleted in the work tree, not yet in the index
    const text = fs.readFileSync(full, "utf8");
    const lines = lineCount(text);
    if (lines > MAX_FILE_LINES && !hasSizeReason(file, text)) found.push({ file, lines });
  }
  return found;
}

function main(argv: string[]): number {
  const root = argv[0] === "--root" ? path.resolve(argv[1]) : path.resolve(__dirname, "..");
  const found = checkFileSize(root);
  for (const f of found) {
    const comment = f.file.endsWith(".sh") ? "#" : "//";
    console.error(
      `${f.file}: ${f.lines} lines; over ${MAX_FILE_LINES}, it must say why it is not split in one of its ` +
        `first ${REASON_WITHIN_LINES} lines: "${comment} size: <reason>" (or split it: see CONTRIBUTING.md, Size).`,
    );
  }
  return found.length === 0 ? 0 : 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
