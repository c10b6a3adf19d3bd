/**
 * The short seeded soak (`make soak` runs 600 lifecycles; this runs a few dozen): random lifecycles of the
 * Instance and the other five resources against the simulator with injected faults, driven through the BUILT
 * provider in its own process as the Pulumi engine drives it (tools/soak). After every phase the simulator's
 * truth is compared with the modelled state: nothing orphaned, duplicated, leaked, reported as success while
 * in Error, lost, or left undestroyable.
 *
 * Runs the compiled harness from dist/ (it forks dist/tools/soak/worker.js, which loads dist/provider):
 * `make test` builds first; alone, run `make build` before `npx jest tests/soak.test.ts`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type * as Runner from "../tools/soak/runner";
import type { FaultClass, SoakFeature } from "../tools/soak/runner";

const runnerPath = path.join(__dirname, "..", "dist", "tools", "soak", "runner.js");

/**
 * What still fails on main (issue 9; seeds and traces in the lead's findings notes). Enable each by moving it
 * into the run once its fix has landed:
 * - "ambiguous-write": a create reset after processing whose reconciliation reads get a 500 -> orphan/duplicate (point 2);
 * - "failed-operation", "stuck-operation": a VM left in Error blocks the deletes of its dependents -> undestroyable (point 5);
 * - "interruptions": the up after an interrupted create makes a second VM (point 3);
 * - "public-ip-toggles": publicIp true -> false -> true leaves the address reserved (point 6);
 * - "public-ip-resource": deleting a PublicIp leaves its address reserved in the account;
 * - "adoption": a replace-forcing change on an adopted VM re-adopts it and then deletes it -> lost (point 4).
 */
const STILL_FAILING_FAULTS: readonly FaultClass[] = ["ambiguous-write", "failed-operation", "stuck-operation"];
const STILL_FAILING_FEATURES: readonly SoakFeature[] = ["interruptions", "public-ip-toggles", "public-ip-resource", "adoption"];

it("a seeded soak: nothing orphaned, duplicated, leaked, reported as success in Error, lost, or undestroyable", async () => {
  if (!fs.existsSync(runnerPath)) throw new Error(`${runnerPath} is missing: run make build first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runSoak, summaryLine, FAULT_CLASSES } = require(runnerPath) as typeof Runner;
  const faultClasses = FAULT_CLASSES.filter((c) => !STILL_FAILING_FAULTS.includes(c));
  const report = await runSoak({ seed: "make-test", lifecycles: 30, lanes: 8, faultClasses, skip: STILL_FAILING_FEATURES });
  const failing = report.failing.map((lc) => ({ seed: lc.seed, findings: lc.findings.map((f) => `${f.kind}: ${f.what}`), trace: lc.trace.join("\n") }));
  expect({ summary: summaryLine(report), failing }).toEqual({
    summary: "soak: 30 lifecycles, " + report.faults + " faults, 0 orphans, 0 duplicates, 0 leaks, 0 errors-reported-as-success, 0 lost, 0 undestroyable",
    failing: [],
  });
  // The run really was under fire (an instrument that injects nothing proves nothing).
  expect(report.faults).toBeGreaterThan(30);
}, 240_000);
