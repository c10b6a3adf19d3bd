#!/usr/bin/env node
// The `vmhost-sim` command: a local VM-hosting API for offline tests (built code lives in dist/).
"use strict";
const { main } = require("../dist/simulator/cli.js");
main(process.argv.slice(2)).then(
  (sim) => {
    const stop = () => sim.close().then(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
  (err) => {
    process.stderr.write(`vmhost-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
