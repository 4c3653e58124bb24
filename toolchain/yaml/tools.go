//go:build tools

// Package tools pins the YAML language host, `pulumi-language-yaml`, that
// toolchain/provision-yaml.sh builds for YAML programs. A module of its own, apart
// from toolchain/go: pulumi-yaml v1.25.0 resolves the Pulumi pkg/sdk modules at
// v3.206.0, and built against the CLI's pkg v3.259.0 it does not compile.
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
