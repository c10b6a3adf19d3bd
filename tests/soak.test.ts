/**
 * The short seeded soak (`make soak` runs 600 lifecycles; this runs a few dozen): random lifecycles of the
 * Instance and the other five resources against the simulator with injected faults, driven through the BUILT
 * provider in its own process as the Pulumi engine drives it (tools/soak). After every phase the simulator's
 * truth is compared with the modelled state: nothing orphaned, duplicated, leaked, reported as success while
 * in Error, lost, left not as declared by a successful up or drifting right after it, out of reach of a fault-free
 * up, or left undestroyable.
 *
 * Each lifecycle's simulator plays a host profile drawn by its seed (tools/soak/hosts.ts: wire variants such as
 * Indonesian status words, operation_flag always 0, creates answered without the id), half of them the default host.
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
 * Fault classes and features left out while their fix is pending (issue 9), so this test guards what already
 * holds. All of them pass on main now (every fault class; interruptions, publicIp toggles, the PublicIp
 * resource, adoption); a regression shows as a finding with the lifecycle's seed and trace. If one must be left
 * out again, list it here with the reason, e.g. "interruptions" (the up after an interrupted create made a
 * second VM: point 3) or "failed-operation" (a VM in Error blocked its dependents' deletes: point 5).
 */
const STILL_FAILING_FAULTS: readonly FaultClass[] = [];
const STILL_FAILING_FEATURES: readonly SoakFeature[] = [];

it("a seeded soak: nothing orphaned, duplicated, leaked, reported as success in Error, lost, not as declared, drifting, or undestroyable", async () => {
  if (!fs.existsSync(runnerPath)) throw new Error(`${runnerPath} is missing: run make build first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runSoak, summaryLine, FAULT_CLASSES } = require(runnerPath) as typeof Runner;
  const faultClasses = FAULT_CLASSES.filter((c) => !STILL_FAILING_FAULTS.includes(c));
  // Time warp 20 and 60 s deadlines (not make soak's 40 and 30 s): make test runs beside other suites, and a
  // loaded machine stalls the provider's process; the warp turns a stall into a long simulated wait.
  const hosts: string[] = [];
  const report = await runSoak({
    seed: "make-test", lifecycles: 24, lanes: 8, timeWarp: 20, timeout: "60s", faultClasses, skip: STILL_FAILING_FEATURES,
    onLifecycle: (lc) => hosts.push(lc.host),
  });
  const failing = report.failing.map((lc) => ({ seed: lc.seed, host: lc.host, findings: lc.findings.map((f) => `${f.kind}: ${f.what}`), trace: lc.trace.join("\n") }));
  expect({ summary: summaryLine(report), failing }).toEqual({
    summary:
      "soak: 24 lifecycles, " + report.faults + " faults, 0 orphans, 0 duplicates, 0 leaks, 0 errors-reported-as-success, 0 lost, " +
      "0 not-as-declared, 0 false-drift, 0 stuck, 0 undestroyable, 0 user-objects-lost",
    failing: [],
  });
  // The run really was under fire (an instrument that injects nothing proves nothing).
  expect(report.faults).toBeGreaterThan(30);
  expect(report.interrupted).toBeGreaterThan(0);
  // Some lifecycles ran against another host than the default one (tools/soak/hosts.ts), some against the default.
  expect(hosts.filter((h) => h !== "default").length).toBeGreaterThan(4);
  expect(hosts).toContain("default");
}, 240_000);
