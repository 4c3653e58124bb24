/**
 * YAML programs of the e2e tests: the head every one of them starts with, the svc provider
 * found in the installed package (`plugins.providers`, as the README's walkthrough says), so
 * nothing is downloaded.
 *
 * @packageDocumentation
 */

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
