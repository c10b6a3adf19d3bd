/**
 * The test order (tests/support/sequencer.js): jest runs exactly the files it returns, so a file it dropped would
 * silently not run. Here with jest's cache off, as in a fresh clone: every file's time is the sequencer's estimate.
 */
import * as path from "node:path";

interface SequencedTest { path: string; context: { config: { cache: boolean } }; duration?: number }
interface Sequencer { sort(tests: SequencedTest[]): SequencedTest[]; hasFailed(test: SequencedTest): boolean }
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SlowFirstSequencer = require("./sequencer") as new () => Sequencer;

const ROOT = path.resolve(__dirname, "..", "..");
const file = (relative: string): SequencedTest => ({ path: path.join(ROOT, relative), context: { config: { cache: false } } });

// Estimates (seconds) without ties, as the base order of equal times is not defined.
const FILES = [
  "provider/clock.test.ts", // waiting (a unit file): 0.5
  "tests/resources/public-ip.test.ts", // waiting: 5
  "tests/e2e/basic-vm.test.ts", // CPU-bound: 30
  "tests/resources/instance.test.ts", // waiting: 20
  "tests/engine/conformance-runs.test.ts", // CPU-bound: 55
  "tests/e2e/safety.test.ts", // CPU-bound: 60
  "tests/host/instance-host.test.ts", // CPU-bound: 15
];

/** The order of FILES; `failedLastTime` stands in for what jest's cache would say failed in the run before. */
function order(failedLastTime: string[] = []): string[] {
  const sequencer = new SlowFirstSequencer();
  sequencer.hasFailed = (t) => failedLastTime.includes(path.relative(ROOT, t.path));
  return sequencer.sort(FILES.map(file)).map((t) => path.relative(ROOT, t.path));
}

test("returns every file exactly once", () => {
  expect([...order()].sort()).toEqual([...FILES].sort());
});

test("starts both kinds at once, each longest first, taking next from the kind with less of its time handed out", () => {
  // CPU-bound 160 s in all, waiting 25.5 s: after safety (60/160) the waiting kind is behind (0 of 25.5); after
  // instance (20/25.5) the CPU-bound kind is, until basic-vm (145/160) passes it; and so on.
  expect(order()).toEqual([
    "tests/e2e/safety.test.ts",
    "tests/resources/instance.test.ts",
    "tests/engine/conformance-runs.test.ts",
    "tests/e2e/basic-vm.test.ts",
    "tests/resources/public-ip.test.ts",
    "tests/host/instance-host.test.ts",
    "provider/clock.test.ts",
  ]);
});

test("files that failed last time run first, then the rest in the same alternating order", () => {
  expect(order(["provider/clock.test.ts", "tests/e2e/basic-vm.test.ts"])).toEqual([
    "tests/e2e/basic-vm.test.ts",
    "provider/clock.test.ts",
    "tests/e2e/safety.test.ts",
    "tests/resources/instance.test.ts",
    "tests/engine/conformance-runs.test.ts",
    "tests/resources/public-ip.test.ts",
    "tests/host/instance-host.test.ts",
  ]);
});
