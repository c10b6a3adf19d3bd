/**
 * The soak: lifecycles spread over lanes (one provider process each), run concurrently, each on its own
 * simulator; the report sums what they found. Used by `make soak` (index.ts) and the short seeded soak in
 * `make test` (tests/soak.test.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ProviderHost } from "./host";
export { FAULT_CLASSES, SOAK_FEATURES, type FaultClass, type SoakFeature } from "./lifecycle";
export { HOST_VARIANTS, type HostVariant } from "./hosts";
import { FAULT_CLASSES, runLifecycle, type FaultClass, type LifecycleReport, type LifecycleSettings } from "./lifecycle";

/** Options of a soak run. */
export interface SoakOptions extends Partial<LifecycleSettings> {
  /** Base seed: lifecycle i runs with seed `<seed>-<i>`. */
  seed: string;
  lifecycles: number;
  /** Index of the first lifecycle (default 0): `--first 41 --lifecycles 1` re-runs lifecycle `<seed>-41` alone. */
  first?: number;
  /** Lifecycles run at once (each lane has its own provider process). */
  lanes?: number;
  /**
   * One lifecycle in `dependentsEvery` also declares the other five resources' kinds (default 4); of the others,
   * one in `fleetEvery` (default 8, counted on the lifecycle's index) declares two or three Instances (feature
   * "fleet"; skipped, it is a lone Instance's).
   */
  dependentsEvery?: number;
  fleetEvery?: number;
  /** Progress callback after each lifecycle. */
  onLifecycle?(report: LifecycleReport, done: number): void;
}

/** The sums of a soak. */
export interface SoakReport {
  lifecycles: number;
  faults: number;
  orphans: number;
  duplicates: number;
  leaks: number;
  errorsReportedAsSuccess: number;
  lost: number;
  /** Successful ups after which the cloud was not as the program declares (truth.ts notAsDeclared). */
  notAsDeclared: number;
  /** Successful ups right after which `preview --refresh` planned a change on an unchanged cloud. */
  falseDrift: number;
  /** Lifecycles whose program no fault-free up could reach (not a documented refusal). */
  stuck: number;
  undestroyable: number;
  /** The user's own objects (seeded reserved addresses, disks, VMs made in the panel) that a phase removed. */
  userObjectsLost: number;
  /** Lifecycles the soak itself failed to run (instrument bugs): they make the run fail too. */
  harnessErrors: number;
  interrupted: number;
  /** Lifecycles with any finding, with their traces. */
  failing: LifecycleReport[];
  wallMs: number;
}

/** The one summary line `make soak` prints. */
export function summaryLine(r: SoakReport): string {
  return (
    `soak: ${r.lifecycles} lifecycles, ${r.faults} faults, ${r.orphans} orphans, ${r.duplicates} duplicates, ${r.leaks} leaks, ` +
    `${r.errorsReportedAsSuccess} errors-reported-as-success, ${r.lost} lost, ${r.notAsDeclared} not-as-declared, ` +
    `${r.falseDrift} false-drift, ${r.stuck} stuck, ${r.undestroyable} undestroyable, ${r.userObjectsLost} user-objects-lost` +
    (r.harnessErrors > 0 ? `, ${r.harnessErrors} harness-errors` : "")
  );
}

/** True when the soak found nothing. */
export function clean(r: SoakReport): boolean {
  return r.orphans + r.duplicates + r.leaks + r.errorsReportedAsSuccess + r.lost + r.notAsDeclared + r.falseDrift + r.stuck + r.undestroyable + r.userObjectsLost + r.harnessErrors === 0;
}

/** Runs a soak. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const settings: LifecycleSettings = {
    opSeconds: options.opSeconds ?? 2,
    timeWarp: options.timeWarp ?? 40,
    timeout: options.timeout ?? "30s",
    faultClasses: options.faultClasses ?? (FAULT_CLASSES as readonly FaultClass[]),
    skip: options.skip ?? [],
    ...(options.host ? { host: options.host } : {}),
    skipHost: options.skipHost ?? [],
  };
  const lanes = Math.max(1, Math.min(options.lanes ?? 12, options.lifecycles));
  const every = options.dependentsEvery ?? 4;
  const fleetEvery = options.fleetEvery ?? 8;
  const started = Date.now();
  const report: SoakReport = {
    lifecycles: 0, faults: 0, orphans: 0, duplicates: 0, leaks: 0, errorsReportedAsSuccess: 0, lost: 0, notAsDeclared: 0, falseDrift: 0, stuck: 0, undestroyable: 0, userObjectsLost: 0, harnessErrors: 0, interrupted: 0,
    failing: [], wallMs: 0,
  };
  const first = options.first ?? 0;
  let next = first;
  const end = first + options.lifecycles;
  // The provider's directory, as a user's machine has one: a process started after a kill finds what the killed one
  // noted there (an address add no run recorded: common/asked-addresses.ts). One per soak, removed at its end.
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-soak-cache-"));
  const lane = async (): Promise<void> => {
    const host = new ProviderHost(settings.timeWarp, { cacheDir });
    try {
      for (let i = next++; i < end; i = next++) {
        const kind = i % every === every - 1 ? "dependents" : i % fleetEvery === 2 && !settings.skip.includes("fleet") ? "fleet" : "instance";
        const lc = await runLifecycle(`${options.seed}-${i}`, kind, host, settings);
        report.lifecycles++;
        report.faults += lc.faults;
        if (lc.interrupted) report.interrupted++;
        for (const f of lc.findings) {
          if (f.kind === "orphan") report.orphans++;
          else if (f.kind === "duplicate") report.duplicates++;
          else if (f.kind === "leak") report.leaks++;
          else if (f.kind === "error-as-success") report.errorsReportedAsSuccess++;
          else if (f.kind === "lost") report.lost++;
          else if (f.kind === "not-as-declared") report.notAsDeclared++;
          else if (f.kind === "false-drift") report.falseDrift++;
          else if (f.kind === "stuck") report.stuck++;
          else if (f.kind === "harness-error") report.harnessErrors++;
          else if (f.kind === "user-object-lost") report.userObjectsLost++;
          else report.undestroyable++;
        }
        if (lc.findings.length > 0) report.failing.push(lc);
        options.onLifecycle?.(lc, report.lifecycles);
      }
    } finally {
      await host.close();
    }
  };
  try {
    await Promise.all(Array.from({ length: lanes }, () => lane()));
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  report.failing.sort((a, b) => a.seed.localeCompare(b.seed, undefined, { numeric: true }));
  report.wallMs = Date.now() - started;
  return report;
}
