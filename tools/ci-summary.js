#!/usr/bin/env node
// Prints the one line CI reads, "N passed, N failed", from jest's --json report, and exits non-zero
// when anything failed or the suite never ran (a build error before jest counts as one failure).
"use strict";
const fs = require("fs");
const [file, makeStatus] = process.argv.slice(2);
let passed = 0;
let failed = 0;
try {
  const r = JSON.parse(fs.readFileSync(file, "utf8"));
  passed = r.numPassedTests;
  failed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
} catch {
  failed = 1; // no report: the build, typecheck or jest itself failed before counting anything
}
if (Number(makeStatus) !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
