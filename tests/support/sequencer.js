/**
 * Test order for jest (jest.config.js `testSequencer`, with two workers per core: 4 on this 2-core machine).
 *
 * Two kinds of files share the machine. The engine, host and end-to-end files are CPU-bound: every engine run
 * starts two Node processes that load @pulumi/pulumi (about 2 s of CPU a run), so two of them fill both cores. Most
 * other files mostly wait: their simulators run 50-200 ms operations and the provider looks again after seconds
 * when an answer was ambiguous (tests/resources: 178 s of wall time for 45 s of CPU). With two workers and the
 * longest files first, the waiting files ran together at the end with the cores idle; run beside the CPU-bound
 * files, their waits overlap that work. So the order here alternates the two kinds, each longest first,
 * picking the next file from the kind with the smaller share of its estimated time handed out so far: four workers
 * then run files of both kinds side by side throughout, and both kinds end together.
 *
 * Jest's own order (its base class) uses the durations of earlier runs, kept in its cache folder under a key
 * derived from the checkout's path: a fresh clone (CI) has none, and jest then orders by file size, which starts
 * the many large unit files first and leaves the short but slow engine and end-to-end files for the end. Here a
 * file without a recorded duration gets an estimate from what it runs (each engine run starts Node processes
 * and costs seconds; unit files cost well under a second). Recorded durations, where jest has them, win over the
 * estimates. Files that failed last time come first, as in jest's own order.
 */
"use strict";
const Sequencer = require("@jest/test-sequencer").default;

/**
 * Estimated seconds of a file with no recorded duration: the slow files by name (measured on the 2-core machine,
 * rounded), then by folder. Only the order matters; a stale figure costs some idle time at the end, not a failure.
 */
const ESTIMATES = [
  [/tests[\\/]e2e[\\/]safety\.test\.ts$/, 60],
  [/tests[\\/]e2e[\\/]web-cluster\.test\.ts$/, 50],
  [/tests[\\/]e2e[\\/].*mocks\.test\.ts$/, 7],
  [/tests[\\/]e2e[\\/]/, 30],
  [/tests[\\/]engine[\\/]state-and-config\.test\.ts$/, 1],
  // Second in line, beside the first end-to-end file: the end-to-end files wait for one shared npm install of the
  // packed tarball (tests/e2e/helpers.ts), so the other worker should not start with one too.
  [/tests[\\/]engine[\\/]conformance-/, 55],
  [/tests[\\/]engine[\\/]/, 25],
  [/tests[\\/]soak\.test\.ts$/, 25],
  [/tests[\\/]host[\\/]/, 15],
  [/tests[\\/]resources[\\/](instance|safety)\.test\.ts$/, 20],
  [/tests[\\/]docs-examples\.test\.ts$/, 7],
  [/tests[\\/]resources[\\/]/, 5],
];
/** Any other file (unit tests: well under a second each). */
const DEFAULT_ESTIMATE = 0.5;

/** Files that spend their time computing (engine runs, the dynamic-provider host, tsc over the docs' examples). */
const CPU_BOUND = [
  /tests[\\/](e2e|engine|host)[\\/]/,
  /tests[\\/](soak|killed-address-add|docs-examples|package-subpaths|provider-stub)\.test\.ts$/,
];

class SlowFirstSequencer extends Sequencer {
  /** Longest first within each kind, the kinds interleaved by the share of their time handed out (see the file's comment). */
  sort(tests) {
    const ordered = super.sort(tests);
    // What failed last time still runs first (jest's own rule: the quickest news of a fix), then both kinds.
    const failed = ordered.filter((t) => this.hasFailed(t));
    const rest = ordered.filter((t) => !failed.includes(t));
    const cpu = rest.filter((t) => CPU_BOUND.some((p) => p.test(t.path)));
    const waiting = rest.filter((t) => !cpu.includes(t));
    const total = (files) => files.reduce((sum, t) => sum + (t.duration ?? 0), 0) || 1;
    const cpuTotal = total(cpu);
    const waitingTotal = total(waiting);
    const out = [...failed];
    let cpuTime = 0;
    let waitingTime = 0;
    while (cpu.length > 0 || waiting.length > 0) {
      const takeCpu = waiting.length === 0 || (cpu.length > 0 && cpuTime / cpuTotal <= waitingTime / waitingTotal);
      const next = takeCpu ? cpu.shift() : waiting.shift();
      if (takeCpu) cpuTime += next.duration ?? 0;
      else waitingTime += next.duration ?? 0;
      out.push(next);
    }
    return out;
  }

  /** The recorded duration (ms) of the file's last run if jest has one, else the estimate for its folder. */
  time(test) {
    const recorded = super.time(test);
    if (recorded !== undefined) return recorded;
    const estimate = ESTIMATES.find(([pattern]) => pattern.test(test.path));
    return (estimate ? estimate[1] : DEFAULT_ESTIMATE) * 1000;
  }
}

module.exports = SlowFirstSequencer;
