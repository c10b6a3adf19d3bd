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
  // Longest files first, also in a fresh clone where jest has no durations of earlier runs (see the file).
  testSequencer: "<rootDir>/tests/support/sequencer.js",
  maxWorkers: 4,
};
