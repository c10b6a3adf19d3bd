#!/usr/bin/env node
// Runs Pulumi programs (dynamic providers) without the Pulumi CLI: see tools/local-engine/README.md.
require("../dist/tools/local-engine/cli.js")
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
