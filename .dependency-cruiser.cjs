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
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.toolchain)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["cjs", "es6"],
  },
};
