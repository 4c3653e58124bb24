//go:build tools

// Package tools pins the Pulumi CLI that toolchain/provision.sh builds when no
// `pulumi` of the pinned version is on PATH. go.mod carries the CLI's non-local
// replace directive (the clipboard fork) that `go install module@version` refuses.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
