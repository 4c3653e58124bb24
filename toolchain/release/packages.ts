/**
 * The release's language packages, each as its language's own tools install it, with no clone:
 *
 * - npm: `pulumi-svc-<version>.tgz`, `npm pack` of the repository (its `prepack` builds `dist/`);
 * - Python: the wheel `pulumi_svc-<version>-py3-none-any.whl` and the sdist
 *   `pulumi_svc-<version>.tar.gz` of `sdk/python`, built by its own build backend (setuptools,
 *   from `pyproject.toml`) in the Python environment of toolchain/provision-python.sh;
 * - Go: `goproxy/`, the module `…/sdk/go` at `v<version>` as a GOPROXY=file:// folder serves it
 *   (`<module>/@v/{list,v<version>.info,.mod,.zip}`, written by toolchain/go/modzip), which a
 *   program reads with `GOPROXY=file://<folder>,<its usual proxy>`; the same zip is what a tag
 *   `sdk/go/v<version>` of the repository would serve.
 *
 * Each is built in a folder of its own under the release cache, from a copy of its sources where
 * the build writes beside them (setuptools' `build/` and `*.egg-info`), and dated by the last
 * commit (SOURCE_DATE_EPOCH, the .info file's time).
 *
 * @packageDocumentation
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { packageSchema } from "../../provider/schema";
import { REPO_ROOT } from "../pulumi-project";
import { RELEASE_CACHE, type ReleaseVersions } from "./plugin";

/** How to get a tool a package needs, by its command. */
const HOW_TO_GET: Record<string, string> = {
  go: "the Go SDK's module needs Go >= 1.26 (Debian: apt-get install golang-go, or https://go.dev/dl)",
  python3: "the Python packages need Python >= 3.9 with venv (Debian: apt-get install python3 python3-venv)",
};

/** Runs a command, its output to this process's stderr; a missing command says how to get it. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT")
      throw new Error(`\`${cmd}\` is not installed: ${HOW_TO_GET[cmd] ?? "install it"}`, { cause: e });
    throw e;
  }
}

/** The last commit's time, unix seconds: the packages' date. */
function commitTime(): string {
  return run("git", ["log", "-1", "--format=%ct"], REPO_ROOT).trim();
}

/** An empty folder under the release cache. */
function freshDir(name: string): string {
  const dir = path.join(RELEASE_CACHE, "build", name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** `npm pack` of the repository; returns the tarball's path. */
export function npmPackage(): string {
  const dir = freshDir("npm");
  const out = run("npm", ["pack", "--json", "--pack-destination", dir], REPO_ROOT);
  const [{ filename }] = JSON.parse(out.slice(out.indexOf("["))) as { filename: string }[];
  return path.join(dir, filename);
}

/**
 * The Python SDK's sources in `src`: sdk/python as committed, or, when the release is given a
 * plugin download URL, generated anew (toolchain/go/sdkgen, as `npm run gen:sdks` does) from the
 * schema with that URL, so that a program's engine downloads the plugin from there
 * (`pulumi-plugin.json`'s `server`, each resource's `plugin_download_url`).
 */
function pythonSources(src: string, v: ReleaseVersions): void {
  const copy = (from: string, to: string): void =>
    fs.cpSync(from, to, { recursive: true, filter: (f) => !/(__pycache__|\.egg-info|\/build)$/.test(f) });
  if (!v.pluginDownloadURL) return copy(path.join(REPO_ROOT, "sdk", "python"), src);
  const gen = path.join(path.dirname(src), "gen");
  for (const lang of ["python", "go"]) {
    fs.mkdirSync(path.join(gen, lang), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, "sdk", lang, "README.md"), path.join(gen, lang, "README.md"));
  }
  const schema = path.join(gen, "schema.json");
  fs.writeFileSync(schema, JSON.stringify(packageSchema(v.version, v.pluginDownloadURL)));
  const cli = fs.readFileSync(path.join(REPO_ROOT, ".toolchain", "pulumi-version"), "utf8").trim();
  const args = ["run", "-mod=readonly", "./sdkgen", "-schema", schema, "-out", gen, "-pulumi-version", cli];
  run("go", args, path.join(REPO_ROOT, "toolchain", "go"));
  copy(path.join(gen, "python"), src);
}

/**
 * The sdist and the wheel of `sdk/python`; returns their paths. As `python -m build` does: the
 * sdist from a copy of the sources, then the wheel from the unpacked sdist (so the wheel holds
 * nothing the sdist lacks), each by the build backend's own hook (PEP 517).
 */
export function pythonPackages(v: ReleaseVersions): string[] {
  run("python3", ["--version"], REPO_ROOT);
  run("bash", [path.join(REPO_ROOT, "toolchain", "provision-python.sh")], REPO_ROOT);
  const python = path.join(REPO_ROOT, ".toolchain", "python", "bin", "python");
  const dir = freshDir("python");
  const [src, dist] = [path.join(dir, "src"), path.join(dir, "dist")];
  pythonSources(src, v);
  // Byte-compiling on (setuptools warns when it is off): it writes only into its build folder.
  const env: NodeJS.ProcessEnv = { ...process.env, SOURCE_DATE_EPOCH: commitTime() };
  delete env.PYTHONDONTWRITEBYTECODE;
  const hook = (name: string, cwd: string): string =>
    run(
      python,
      ["-c", `import sys; from setuptools import build_meta as b; print(b.${name}(sys.argv[1]))`, dist],
      cwd,
      env,
    )
      .trim()
      .split("\n")
      .pop() ?? "";
  const sdist = hook("build_sdist", src);
  execFileSync("tar", ["-xzf", path.join(dist, sdist), "-C", dir]);
  const wheel = hook("build_wheel", path.join(dir, sdist.replace(/\.tar\.gz$/, "")));
  return [path.join(dist, sdist), path.join(dist, wheel)];
}

/** The Go module `sdk/go` at `v<version>` in a GOPROXY folder; returns the folder. */
export function goProxy(v: ReleaseVersions): string {
  const out = path.join(freshDir("go"), "goproxy");
  const time = new Date(Number(commitTime()) * 1000).toISOString();
  const args = ["run", "-mod=readonly", "-trimpath", "./modzip", "-dir", path.join(REPO_ROOT, "sdk", "go")];
  run(
    "go",
    [...args, "-version", `v${v.version}`, "-time", time, "-out", out],
    path.join(REPO_ROOT, "toolchain", "go"),
  );
  return out;
}
