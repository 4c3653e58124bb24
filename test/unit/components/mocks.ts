/**
 * The Pulumi mocks the SDK classes' unit tests share (the provider's fixtures are in
 * ../provider/helpers.ts).
 */
import * as pulumi from "@pulumi/pulumi";

/** Pulumi's mocks, each resource registered pushed onto `registered`, its inputs its state. */
export function recordRegistrations(registered: pulumi.runtime.MockResourceArgs[]): void {
  pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push(args);
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    false,
  );
}
