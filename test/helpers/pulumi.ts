/**
 * The e2e harness: a throwaway Pulumi project and stack on a local `file://` backend, driven with
 * the real Pulumi CLI. It lives in `toolchain/pulumi-project.ts` (the benchmarks drive the CLI
 * with it too, and `bench/` does not import `test/`).
 */
export * from "../../toolchain/pulumi-project";
