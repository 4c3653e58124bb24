#!/usr/bin/env node
// Copyright the pulumi-svc authors. Licensed under Apache-2.0.
//
// The Node.js language host for the Pulumi CLI ("pulumi-language-nodejs"): the script the shim
// written by toolchain/provision.sh runs. It only starts the host; the host itself (why it
// exists, the official host's contract it keeps, where it differs) is toolchain/language-host/,
// starting with index.js. This path stays so the shim, the docs and the tests keep naming it.
"use strict";

require("./language-host/index.js").main(process.argv.slice(2), process.env);
