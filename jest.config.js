/**
 * Jest runs TypeScript through ts-jest in transpile-only mode (tsconfig isolatedModules): type errors are
 * caught once, by `tsc --noEmit` in `make test`, instead of again in every test worker.
 * Tests that drive the packed package (dynamic-provider host, local engine, examples) need `make pack`
 * first; `make test` does that.
 */
// Learned operation durations (and address-add notes) stay in memory during tests (provider/wait/durations.ts):
// nothing is written to the user's cache directory, and no run depends on what an earlier one learned. Set, not
// defaulted: a VMHOST_CACHE_DIR in the developer's shell made tests/wait-instance.test.ts fail on what other tests
// learned (fleet audit). Tests that need a directory (e2e stacks keeping one) set it for their own processes.
process.env.VMHOST_CACHE_DIR = "off";

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
  // .stryker-tmp-*: the sandboxes of `make mutate` (copies of the repository) while it runs.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/dist/", "<rootDir>/examples/", "<rootDir>/.pack/", "<rootDir>/.stryker-tmp"],
  modulePathIgnorePatterns: ["<rootDir>/dist/", "<rootDir>/examples/", "<rootDir>/.pack/", "<rootDir>/.stryker-tmp"],
  testTimeout: 60000,
  // Longest first and CPU-bound files beside waiting ones, also in a fresh clone where jest has no durations of earlier
  // runs (see the file). Two workers per core: about half the files mostly wait on real time while the others compute
  // (4 on this 2-core machine: jest 704 s instead of 867 s with 2). Not "200%": jest caps a percentage at 100.
  testSequencer: "<rootDir>/tests/support/sequencer.js",
  maxWorkers: 2 * require("node:os").availableParallelism(),
};
