/**
 * The Python and Go SDKs (sdk/): generated from the schema the svc provider serves, committed as
 * generated, and tested with Pulumi's mocks in their own language (test/sdk/python with pytest,
 * test/sdk/go with `go test`; sdk/go with its own `go.sum`, so that it builds with the default
 * `GOSUMDB`). The mock tests run on the release's packages (toolchain/release/packages.ts), as a
 * user installs them, not on the source tree: the wheel in a fresh virtualenv, the module from
 * the release's GOPROXY=file:// folder. The schema itself is checked here as the CLI receives it
 * (`pulumi package get-schema` of the built provider) against the TypeScript declarations, read
 * through the compiler: every `Account` output and every `DlqRecoveryArgs` input.
 *
 * Needs Python >= 3.9 and Go >= 1.26; a missing one fails its test with how to get it.
 */
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { goProxy, pythonPackages } from "../../toolchain/release/packages";
import { releaseVersions } from "../../toolchain/release/plugin";
import { REPO_ROOT } from "../helpers/pulumi";

/** The Go SDK's module path (sdk/go/go.mod). */
const SDK_MODULE = "github.com/pulumi-svc/pulumi-svc/sdk/go";

const exec = promisify(execFile);
const BIG = { maxBuffer: 64 * 1024 * 1024 };

/** Runs a command; a failure carries its output. */
async function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    const { stdout, stderr } = await exec(cmd, args, { cwd, env, ...BIG });
    return stdout + stderr;
  } catch (err) {
    const e = err as { code?: string; stdout?: string; stderr?: string; message: string };
    if (e.code === "ENOENT")
      throw new Error(`\`${cmd}\` is not installed: ${HOW_TO_GET[cmd] ?? "install it"}.`, { cause: err });
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? e.message}`, {
      cause: err,
    });
  }
}

const HOW_TO_GET: Record<string, string> = {
  go: "the Go SDK's tests need Go >= 1.26 (Debian: apt-get install golang-go, or https://go.dev/dl)",
  python3:
    "the Python SDK's tests need Python >= 3.9 with venv (Debian: apt-get install python3 python3-venv)",
};

/** Every file under a folder, by relative path, with its content. */
function tree(dir: string, base = dir, out = new Map<string, string>()): Map<string, string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tree(p, base, out);
    else out.set(path.relative(base, p), fs.readFileSync(p, "utf8"));
  }
  return out;
}

/**
 * Drops a module version from the Go module cache, so that a build fetches it again: the cache
 * keeps one copy of each version for good, and an earlier run's copy of the release's version
 * (other bytes, same number) would be built instead of the release's. Its extracted tree is
 * read-only, as Go leaves it.
 */
function dropCachedModule(cache: string, module: string, version: string): void {
  const writable = (dir: string): void => {
    fs.chmodSync(dir, 0o755);
    for (const e of fs.readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) writable(path.join(dir, e.name));
  };
  const extracted = path.join(cache, `${module}@v${version}`);
  if (fs.existsSync(extracted)) {
    writable(extracted);
    fs.rmSync(extracted, { recursive: true, force: true });
  }
  const downloads = path.join(cache, "cache", "download", module, "@v");
  if (!fs.existsSync(downloads)) return;
  for (const f of fs.readdirSync(downloads))
    if (f.startsWith(`v${version}.`)) fs.rmSync(path.join(downloads, f), { force: true });
}

/** The files of an SDK folder that git keeps (not what its .gitignore ignores: a build's egg-info). */
async function committedTree(dir: string): Promise<Map<string, string>> {
  const list = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "."], dir);
  const files = list.split("\0").filter((f) => f !== "" && fs.existsSync(path.join(dir, f)));
  return new Map(files.map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]));
}

/** A class's or an interface's properties and their types, as the compiler reports them. */
function declaredProperties(file: string, name: string): Map<string, string> {
  const program = ts.createProgram([file], { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  assert.ok(source, file);
  const decl = source.statements.find(
    (s): s is ts.ClassDeclaration | ts.InterfaceDeclaration =>
      (ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name?.text === name,
  );
  assert.ok(decl?.name, `${name} is declared in ${file}`);
  const type = checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(decl.name) as ts.Symbol);
  return new Map(type.getProperties().map((p) => [p.name, checker.typeToString(checker.getTypeOfSymbol(p))]));
}

interface ServedSchema {
  resources: Record<
    string,
    { properties: Record<string, unknown>; inputProperties: Record<string, unknown> }
  >;
}

describe("SDKs: Python and Go from the provider's schema", function () {
  this.timeout(600_000);

  it("the schema the provider serves has every Account output and every DlqRecovery input", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-schema-"));
    const provider = path.join(REPO_ROOT, "dist", "provider", "pulumi-resource-svc");
    const text = await exec("pulumi", ["package", "get-schema", provider], { cwd: work, ...BIG });
    const schema = JSON.parse(text.stdout) as ServedSchema;
    const account = schema.resources["svc:index:Account"].properties;
    // Its outputs: the `Output` properties a program reads, less the two every resource has.
    const declared = declaredProperties(path.join(REPO_ROOT, "components", "Account.ts"), "Account");
    const outputs = [...declared]
      .filter(([n, type]) => /^Output(Instance)?</.test(type) && n !== "urn" && n !== "id")
      .map(([n]) => n);
    assert.ok(outputs.length >= 29, `Account declares ${outputs.length} outputs`);
    for (const n of outputs) assert.ok(n in account, `Account output \`${n}\` is in the served schema`);
    const inputs = declaredProperties(
      path.join(REPO_ROOT, "components", "DlqRecovery.ts"),
      "DlqRecoveryArgs",
    );
    const served = Object.keys(schema.resources["svc:index:DlqRecovery"].inputProperties);
    assert.deepEqual(served.sort(), [...inputs.keys()].sort());
  });

  it("the committed SDKs are what that schema generates (npm run gen:sdks), sdk/go tidied", async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "svc-sdks-"));
    await run("bash", [path.join(REPO_ROOT, "scripts", "gen-sdks.sh"), out], REPO_ROOT);
    for (const lang of ["python", "go"]) {
      const committed = await committedTree(path.join(REPO_ROOT, "sdk", lang));
      const generated = tree(path.join(out, lang));
      assert.deepEqual(
        [...generated.keys()].sort(),
        [...committed.keys()].sort(),
        `the files of sdk/${lang}`,
      );
      for (const [file, text] of generated) {
        assert.ok(
          committed.get(file) === text,
          `sdk/${lang}/${file} differs from what the schema generates: run \`npm run gen:sdks\``,
        );
      }
    }
  });

  it("Python: the release's wheel, in a fresh virtualenv, under Pulumi's mocks (pytest)", async () => {
    await run("python3", ["--version"], REPO_ROOT);
    const wheel = pythonPackages(releaseVersions()).find((f) => f.endsWith(".whl"));
    assert.ok(wheel, "the release has a wheel");
    // A new environment, as a user's program has: the wheel with its dependencies from PyPI,
    // `pulumi` at the CLI's version, pytest; no sdk/python on the path.
    const venv = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-py-")), "venv");
    await run("python3", ["-m", "venv", venv], REPO_ROOT);
    const python = path.join(venv, "bin", "python");
    const cli = fs.readFileSync(path.join(REPO_ROOT, ".toolchain", "pulumi-version"), "utf8").trim();
    const requirements = path.join(REPO_ROOT, "test", "sdk", "python", "requirements.txt");
    const pip = ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--no-compile"];
    await run(python, [...pip, wheel, `pulumi==${cli.replace(/^v/, "")}`, "-r", requirements], REPO_ROOT);
    const where = await run(python, ["-c", "import pulumi_svc; print(pulumi_svc.__file__)"], REPO_ROOT);
    assert.ok(where.trim().startsWith(venv), `pulumi_svc comes from the wheel: ${where}`);
    const out = await run(
      python,
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test/sdk/python"],
      REPO_ROOT,
    );
    assert.match(out, /\b7 passed\b/, out);
  });

  it("Go: the release's module, from a GOPROXY=file:// folder, under Pulumi's mocks (go test)", async () => {
    const { version } = releaseVersions();
    const proxy = goProxy(releaseVersions());
    // The test module copied out, its `replace` of sdk/go dropped: it requires the release's
    // module, which only the release's folder serves (no checksum database knows it yet).
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-go-"));
    const module = path.join(REPO_ROOT, "test", "sdk", "go");
    for (const f of ["go.mod", "go.sum", "svc_test.go"])
      fs.copyFileSync(path.join(module, f), path.join(work, f));
    const usual = (await run("go", ["env", "GOPROXY"], work)).trim();
    dropCachedModule((await run("go", ["env", "GOMODCACHE"], work)).trim(), SDK_MODULE, version);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GOPROXY: `file://${proxy},${usual}`,
      GONOSUMDB: SDK_MODULE,
      GOFLAGS: "-mod=mod",
      SVC_SDK_VERSION: version,
    };
    await run(
      "go",
      ["mod", "edit", `-dropreplace=${SDK_MODULE}`, `-require=${SDK_MODULE}@v${version}`],
      work,
      env,
    );
    // -trimpath: the build cache's entries do not depend on where the module is, so a run reuses
    // what another compiled (without it, about 12 s of CPU each time).
    const out = await run("go", ["test", "-trimpath", "-count=1", "-v", "./..."], work, env);
    assert.equal((out.match(/^--- PASS/gm) ?? []).length, 6, out);
    const list = await run("go", ["list", "-m", "-f", "{{.Version}} {{.Dir}}", SDK_MODULE], work, env);
    assert.match(
      list,
      new RegExp(`^v${version.replace(/\./g, "\\.")} .*@v${version.replace(/\./g, "\\.")}`),
      list,
    );
  });

  it("Go: sdk/go builds on its own with the default GOSUMDB (its go.sum is complete)", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, GOFLAGS: "-mod=readonly" };
    for (const k of ["GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GOINSECURE"]) delete env[k];
    await run(
      "go",
      ["build", "-trimpath", "-o", os.devNull, "./..."],
      path.join(REPO_ROOT, "sdk", "go"),
      env,
    );
  });

  it("Go: the README's example program builds against the SDK", async () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, "sdk", "go", "README.md"), "utf8");
    const code = /```go\n([\s\S]*?)```/.exec(readme);
    assert.ok(code, "sdk/go/README.md has a ```go example");
    // The example as the file readme/main.go of the test module, only for this build (an overlay).
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "svc-go-readme-"));
    const module = path.join(REPO_ROOT, "test", "sdk", "go");
    fs.writeFileSync(path.join(work, "main.go"), code[1]);
    const overlay = { Replace: { [path.join(module, "readme", "main.go")]: path.join(work, "main.go") } };
    const overlayFile = path.join(work, "overlay.json");
    fs.writeFileSync(overlayFile, JSON.stringify(overlay));
    const args = ["build", "-mod=readonly", "-trimpath", "-overlay", overlayFile, "-o", os.devNull];
    await run("go", [...args, "./readme"], module);
  });
});
