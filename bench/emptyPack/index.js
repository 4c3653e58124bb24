// Bench 8's floor: a policy pack whose one stack policy does nothing. `pulumi preview` with it
// against without it is what any policy pack costs under this CLI and language host.
const { PolicyPack } = require("@pulumi/policy");

new PolicyPack("bench-empty", {
  policies: [
    {
      name: "nothing",
      description: "Checks nothing: the floor of a policy pack's cost.",
      enforcementLevel: "advisory",
      validateStack: () => undefined,
    },
  ],
});
