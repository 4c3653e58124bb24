/**
 * YAML programs of the e2e tests: the head every one of them starts with, the svc provider
 * found in the installed package (`plugins.providers`, as the README's walkthrough says), so
 * nothing is downloaded; and their project, with the YAML language host provisioned.
 *
 * @packageDocumentation
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { PulumiProject, REPO_ROOT } from "./pulumi";

/** The first lines of a YAML program named `name` that uses the svc provider. */
export function yamlProgramHead(name: string): string {
  return `name: ${name}
runtime: yaml
plugins:
  providers:
    - name: svc
      path: ./node_modules/pulumi-svc/dist/provider
`;
}

/** The `svc:` settings a YAML test sets, by their key without `svc:`. */
export type SvcConfig = Partial<
  Record<"accountApiUrl" | "baseUrl" | "username" | "password" | "token", string>
>;

/**
 * The project of the YAML program `program`: the YAML language host built first if it is not
 * (toolchain/provision-yaml.sh; a failure says how to get it), then the stack with `config` set
 * (`password` and `token` as secrets).
 */
export async function yamlProject(name: string, program: string, config: SvcConfig): Promise<PulumiProject> {
  await promisify(execFile)("bash", [path.join(REPO_ROOT, "toolchain", "provision-yaml.sh")]);
  const p = await PulumiProject.create({ name, program: "", files: { "Pulumi.yaml": program } });
  for (const [key, value] of Object.entries(config)) {
    if (value !== undefined) await p.setConfig(`svc:${key}`, value, key === "password" || key === "token");
  }
  return p;
}
