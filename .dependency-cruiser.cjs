// Import rules checked by `npm run check` (and so by CI): imports run one way.
// Type-only imports count too (tsPreCompilationDeps), so a cycle hidden behind `import type`
// fails as well.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules import each other in a cycle; move the shared part into a module of its own.",
      from: {},
      to: { circular: true },
    },
    {
      name: "policies-apart-from-components",
      severity: "error",
      comment:
        "The policy pack builds on core/ and client/ only (no drain): what it shares with the components belongs in core/.",
      from: { path: "^policies/" },
      to: { path: "^(components|drain)/" },
    },
    {
      name: "core-below-components",
      severity: "error",
      comment:
        "core/ is the layer below components/, policies/ and provider/: it imports none of them, nor the drains.",
      from: { path: "^core/" },
      to: { path: "^(components|policies|provider|drain)/" },
    },
    {
      name: "emulator-independent",
      severity: "error",
      comment:
        "The emulator is the independent check of the client (its own parser of the wire grammar): it imports nothing of the project.",
      from: { path: "^emulator/" },
      to: {
        path: "^(bin|client|drain|core|components|policies|provider|bench|test|scripts|toolchain|examples)/",
      },
    },
    {
      name: "provider-apart-from-components",
      severity: "error",
      comment:
        "The provider process runs provider/ on core/, drain/ and client/: it loads nothing of components/ (the classes a program uses).",
      from: { path: "^provider/" },
      to: { path: "^(components|dynamic|policies)/" },
    },
    {
      name: "components-apart-from-provider",
      severity: "error",
      comment:
        "A program loads components/ on core/ and client/: none of the provider's resources nor the drains.",
      from: { path: "^components/" },
      to: { path: "^(provider|dynamic|drain)/" },
    },
    {
      name: "drain-below-components",
      severity: "error",
      comment:
        "drain/ (the drains, their planner and rate gates) builds on the HTTP client only: it imports no component, provider, policy or core module.",
      from: { path: "^drain/" },
      to: { path: "^(components|policies|provider|core|bin)/" },
    },
    {
      name: "http-client-below-drain",
      severity: "error",
      comment:
        "The HTTP client is the layer below the drains: nothing in client/ (its entry point, pulumi-svc/client, included) imports drain/; drain/DrainClient.ts wraps the client instead.",
      from: { path: "^client/" },
      to: { path: "^drain/" },
    },
    {
      name: "bench-apart-from-test",
      severity: "error",
      comment: "Benchmarks do not import tests; what both use lives in bench/lib/ (tests may import it).",
      from: { path: "^bench/" },
      to: { path: "^test/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.toolchain)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["cjs", "es6"],
  },
};
