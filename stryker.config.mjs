// Mutation testing (issue 13): `make mutate` runs Stryker once per folder below, each with only the jest
// suites that exercise that folder, so a mutant never waits for unrelated suites. Tests that drive the packed
// tarball (tests/host, tests/e2e, examples) are left out on purpose: they run dist/, which Stryker does not
// mutate, so they could only cost time, never kill a mutant.
// MUTATE_FOLDER picks the folder (api | wait | resources | local-engine); MUTATE_FILES narrows it further
// (comma-separated globs, e.g. provider/wait/poll.ts) for a quick run while writing tests.
// Incremental: each folder keeps its own result file under reports/ (git-ignored, like every run's output),
// so a second run re-tests only mutants whose code or covering tests changed.
const FOLDERS = {
  api: {
    mutate: ["provider/api/**/*.ts"],
    tests: ["<rootDir>/provider/api/**/*.test.ts"],
  },
  wait: {
    mutate: ["provider/wait/**/*.ts"],
    tests: ["<rootDir>/provider/wait/**/*.test.ts", "<rootDir>/tests/wait-instance.test.ts"],
  },
  resources: {
    mutate: ["provider/resources/**/*.ts"],
    tests: ["<rootDir>/provider/resources/**/*.test.ts", "<rootDir>/tests/resources/**/*.test.ts"],
  },
  "local-engine": {
    mutate: ["tools/local-engine/**/*.ts"],
    tests: ["<rootDir>/tests/engine/**/*.test.ts"],
  },
};

const name = process.env.MUTATE_FOLDER ?? "wait";
const folder = FOLDERS[name];
if (!folder) throw new Error(`MUTATE_FOLDER=${name}: expected one of ${Object.keys(FOLDERS).join(", ")}`);
const files = process.env.MUTATE_FILES ? process.env.MUTATE_FILES.split(",") : folder.mutate;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "jest",
  checkers: ["typescript"],
  tsconfigFile: "tsconfig.json",
  // Tests and their helpers are never mutated; samples.ts is test data.
  mutate: [...files, "!**/*.test.ts", "!**/__tests__/**"],
  jest: {
    projectType: "custom",
    configFile: "jest.config.js",
    config: { testMatch: folder.tests, maxWorkers: 1 },
    enableFindRelatedTests: false,
  },
  // Only the tests that ran a mutant's code run against it.
  coverageAnalysis: "perTest",
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${name}.json`,
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  // A mutant that makes a wait hang is killed by this timeout (counted as detected), so keep it short.
  timeoutMS: 5000,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: `.stryker-tmp-${name}`,
  cleanTempDir: true,
  ignoreStatic: true,
  thresholds: { high: 90, low: 80, break: null },
};
