import * as pulumi from "@pulumi/pulumi";

/**
 * A dynamic provider that loads its implementation inside each method, by module name.
 *
 * Pulumi serializes a dynamic provider into the state as a closure (`__provider`):
 * anything it captures is frozen there in plaintext. This object captures nothing but
 * the module name, and the implementation (HTTP client, credentials lookup) is required
 * at run time from the program's `node_modules` — so no credential, client or local path
 * ever reaches the state, and a new library version takes effect without replacing
 * resources.
 *
 * @param moduleId - e.g. `"pulumi-svc/providers/account"`; the module exports `provider`.
 * @internal
 */
export function lazyProvider(moduleId: string): pulumi.dynamic.ResourceProvider {
  return {
    configure: (req) => require(moduleId).provider.configure(req),
    check: (olds, news) => require(moduleId).provider.check(olds, news),
    diff: (id, olds, news) => require(moduleId).provider.diff(id, olds, news),
    create: (inputs) => require(moduleId).provider.create(inputs),
    read: (id, props) => require(moduleId).provider.read(id, props),
    update: (id, olds, news) => require(moduleId).provider.update(id, olds, news),
    delete: (id, props) => require(moduleId).provider.delete(id, props),
  };
}
