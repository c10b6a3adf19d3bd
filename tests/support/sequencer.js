/**
 * Test order for jest (jest.config.js `testSequencer`): the files that take longest start first, so the two
 * workers finish together instead of one running a minute-long end-to-end file alone at the end.
 *
 * Jest's own order (its base class) uses the durations of earlier runs, kept in its cache folder under a key
 * derived from the checkout's path: a fresh clone (CI) has none, and jest then orders by file size, which starts
 * the many large unit files first and leaves the short but slow engine and end-to-end files for the end. Here a
 * file without a recorded duration gets an estimate from what it runs (each engine run starts Node processes
 * and costs seconds; unit files cost well under a second); jest's base ordering (failed first, then longest
 * first) applies unchanged. Recorded durations, where jest has them, win over the estimates.
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

class SlowFirstSequencer extends Sequencer {
  /** The recorded duration (ms) of the file's last run if jest has one, else the estimate for its folder. */
  time(test) {
    const recorded = super.time(test);
    if (recorded !== undefined) return recorded;
    const estimate = ESTIMATES.find(([pattern]) => pattern.test(test.path));
    return (estimate ? estimate[1] : DEFAULT_ESTIMATE) * 1000;
  }
}

module.exports = SlowFirstSequencer;
