import { createHash } from "node:crypto";
// Mutation testing (issue 13): `make mutate` (tools/mutate/run.mjs) runs Stryker once per PIECE of each folder
// below, each piece with only the jest suites that exercise it, so a mutant never waits for unrelated suites and
// each finished piece is saved at once. Stryker writes its incremental file only when a run ends (an interrupted
// run keeps nothing), so on this 2-core machine a folder that takes hours is run in pieces that each take minutes
// to tens of minutes; a piece interrupted is the only work lost.
// Tests that drive the packed tarball (tests/host, tests/e2e, examples) are left out on purpose: they run dist/,
// which Stryker does not mutate, so they could only cost time, never kill a mutant.
// MUTATE_FOLDER picks the folder (api | wait | resources | local-engine), MUTATE_PIECE one of its pieces (default:
// the first); MUTATE_FILES narrows a piece further (comma-separated globs, e.g. provider/wait/poll.ts) for a quick
// run while writing tests: such a run has its own result files, so it never replaces a whole piece's.
// Incremental: each piece keeps its own result file under reports/ (git-ignored, like every run's output), so a
// second run re-tests only mutants whose code or covering tests changed.
// Each api piece runs only the api suites that import its files (directly or through other modules, as
// `jest --listTests --findRelatedTests <files>` lists them): a suite that never loads a file cannot kill its
// mutants, but jest loads every listed suite for every mutant.
const apiTests = (...suites) => suites.map((s) => (s === "routes" ? "<rootDir>/provider/api/routes.test.ts" : `<rootDir>/provider/api/__tests__/${s}.test.ts`));
const API_CHAIN = ["areas", "client", "errors", "limiter", "paginate", "request-timeout", "request", "retry", "secrets", "transport"];
// Fast in-process suites of the engine's pieces (no program or provider-host process): what the pieces below run.
const engineUnit = (...names) => names.map((t) => `<rootDir>/tests/engine/unit/${t}.test.ts`);
const waitTests = (...suites) => [...suites.map((s) => `<rootDir>/provider/wait/${s}.test.ts`), "<rootDir>/tests/wait-instance.test.ts"];
const resourceTests = (name, ...suites) => [`<rootDir>/provider/resources/${name}/**/*.test.ts`, ...suites.map((s) => `<rootDir>/tests/resources/${s}.test.ts`)];

const instanceTests = resourceTests("instance", "instance", "safety", "stuck-changes", "standalone-no-drift");

/** folder -> pieces: what each mutates and the suites run against it. */
export const FOLDERS = {
  api: [
    { piece: "pipeline", mutate: ["provider/api/{pipeline,retry,deadline,log}.ts"], tests: apiTests(...API_CHAIN, "pipeline", "deadline", "log", "config") },
    { piece: "limiter", mutate: ["provider/api/{limiter,pacer}.ts"], tests: apiTests(...API_CHAIN, "pacer", "pipeline") },
    { piece: "client", mutate: ["provider/api/{client,transport,request,config,overrides,version,routes,errors}.ts"], tests: apiTests(...API_CHAIN, "config", "pipeline", "schemas", "routes") },
    { piece: "schemas", mutate: ["provider/api/schemas/**/*.ts", "provider/api/{normalize,paginate,operations}.ts"], tests: apiTests(...API_CHAIN, "lenient-dates", "normalize", "pipeline", "schemas", "routes") },
    { piece: "areas", mutate: ["provider/api/areas/**/*.ts", "provider/api/index.ts"], tests: apiTests(...API_CHAIN) },
  ],
  // Three pieces (594 mutants in all by now, over an hour in one run here), each with the wait suites that
  // import its files (jest --findRelatedTests).
  wait: [
    { piece: "poll", mutate: ["provider/wait/{poll,durations,scope}.ts"], tests: waitTests("durations", "poll", "scope") },
    { piece: "shared", mutate: ["provider/wait/{batched-asks,hostname-listing,shared-read,status-poller}.ts"], tests: waitTests("hostname-listing", "shared-read", "status-poller") },
    { piece: "instance", mutate: ["provider/wait/instance.ts"], tests: waitTests() },
  ],
  resources: [
    // common's helpers (check messages, "did you mean", fields, diffs) are exercised mostly by each resource's
    // unit suites, so all of those run here (about 5 s in all), with three provider suites against the simulator
    // for the wiring (preview checks, the instance lock, define/unconfirmed creates/reconcile through FirewallRule);
    // the other provider suites would add minutes a mutant. (tests/custom-timeouts, once listed here under a path
    // where it is not, tests the SDK's warning only: it cannot reach common's code.)
    {
      piece: "common", mutate: ["provider/resources/common/**/*.ts"], tests: [
        "<rootDir>/provider/resources/**/*.test.ts",
        ...["preview-checks", "parallel-on-instance", "firewall-rule"].map((s) => `<rootDir>/tests/resources/${s}.test.ts`),
      ],
    },
    { piece: "block-storage-attachment", waitsOnSimulator: true, mutate: ["provider/resources/block-storage-attachment/**/*.ts"], tests: resourceTests("block-storage-attachment", "block-storage-attachment") },
    { piece: "firewall-rule", waitsOnSimulator: true, mutate: ["provider/resources/firewall-rule/**/*.ts"], tests: resourceTests("firewall-rule", "firewall-rule") },
    { piece: "public-ip", waitsOnSimulator: true, mutate: ["provider/resources/public-ip/**/*.ts"], tests: resourceTests("public-ip", "public-ip") },
    { piece: "snapshot", waitsOnSimulator: true, mutate: ["provider/resources/snapshot/**/*.ts"], tests: resourceTests("snapshot", "snapshot") },
    { piece: "vswitch-attachment", waitsOnSimulator: true, mutate: ["provider/resources/vswitch-attachment/**/*.ts"], tests: resourceTests("vswitch-attachment", "vswitch-attachment") },
    // The Instance in two pieces (1179 mutants in one, over an hour and a half here): its rules (inputs, diff,
    // model) and its provider, each with the same suites.
    { piece: "instance-rules", waitsOnSimulator: true, mutate: ["provider/resources/instance/{inputs,diff,model}.ts"], tests: instanceTests },
    { piece: "instance-provider", waitsOnSimulator: true, mutate: ["provider/resources/instance/provider.ts"], tests: instanceTests },
  ],
  "local-engine": [
    { piece: "config", mutate: ["tools/local-engine/config.ts"], tests: [...engineUnit("config"), "<rootDir>/tests/engine/state-and-config.test.ts"] },
    { piece: "values-state", mutate: ["tools/local-engine/{values,state,output}.ts"], tests: [...engineUnit("values", "output-state"), "<rootDir>/tests/engine/secrets-key.test.ts"] },
    { piece: "deployment", mutate: ["tools/local-engine/deployment.ts"], tests: engineUnit("deployment-steps", "deployment-runs") },
    // The gRPC services and the command line have in-process suites.
    { piece: "monitor-cli", mutate: ["tools/local-engine/{cli,monitor,providerTypes,errors}.ts"], tests: engineUnit("monitor", "cli", "deployment-steps") },
    // The provider host's client runs against a fake host process (tests/engine/unit/fake-host.js: the real
    // host's protocol, scripted answers, ~0.1 s to start); no other suite imports providerHost.ts but through
    // index.ts, whose suites spawn the real processes and would only cost time here.
    { piece: "provider-host", mutate: ["tools/local-engine/providerHost.ts"], tests: engineUnit("provider-host") },
    // The run itself (index.ts) against a fake program and the fake host (tests/engine/unit/fake-program.js in a
    // throwaway project's @pulumi/pulumi/cmd/run): a run in a fraction of a second. The process-spawning
    // tests/engine suites (the real language runtime and host, two Node processes per test) are left out: they
    // made this piece take hours here.
    { piece: "run", mutate: ["tools/local-engine/index.ts"], tests: engineUnit("run-engine") },
  ],
};

const name = process.env.MUTATE_FOLDER ?? "wait";
const pieces = FOLDERS[name];
if (!pieces) throw new Error(`MUTATE_FOLDER=${name}: expected one of ${Object.keys(FOLDERS).join(", ")}`);
const piece = process.env.MUTATE_PIECE ? pieces.find((p) => p.piece === process.env.MUTATE_PIECE) : pieces[0];
if (!piece) throw new Error(`MUTATE_PIECE=${process.env.MUTATE_PIECE}: expected one of ${pieces.map((p) => p.piece).join(", ")}`);
const files = process.env.MUTATE_FILES ? process.env.MUTATE_FILES.split(",") : piece.mutate;
// A narrowed run gets its own result files (named after the files), so it never replaces the piece's.
// Long lists (line ranges of several files) are cut and end in a hash: file names have a length limit.
const filesId = files.join("+").replace(/[^\w.-]+/g, "_");
const id = process.env.MUTATE_FILES
  ? `${name}-${piece.piece}-files-${filesId.length > 100 ? `${filesId.slice(0, 60)}-${createHash("sha256").update(filesId).digest("hex").slice(0, 12)}` : filesId}`
  : `${name}-${piece.piece}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "jest",
  checkers: ["typescript"],
  // The checker type-checks each mutant with everything that imports its file. tsconfig.mutate.json is the
  // project without the tests (97 files, not 260): the tests import nearly every module, so with them each
  // check re-checked hundreds of files and the checker, not the tests, set the pace (one core busy, the test
  // runner mostly idle). A mutant that breaks only a test's types now runs the tests instead (ts-jest does not
  // type-check: they fail or pass on behaviour).
  tsconfigFile: "tsconfig.mutate.json",
  // Tests and their helpers are never mutated; samples.ts is test data.
  mutate: [...files, "!**/*.test.ts", "!**/__tests__/**"],
  jest: {
    projectType: "custom",
    configFile: "jest.config.js",
    config: { testMatch: piece.tests, maxWorkers: 1 },
    enableFindRelatedTests: false,
  },
  // Only the tests that ran a mutant's code run against it.
  coverageAnalysis: "perTest",
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${id}.json`,
  // Stryker splits `concurrency` between type checkers and test runners (4: two of each, 2: one of each). A
  // piece whose suites mostly wait on the simulator (waitsOnSimulator) leaves a runner's CPU idle between
  // answers, so it gets 4; the CPU-bound pieces get 2, the machine's cores.
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? (piece.waitsOnSimulator ? 4 : 2)),
  // A mutant that makes a wait hang is killed by this timeout (counted as detected), so keep it short.
  timeoutMS: 5000,
  // A piece's initial coverage run at the load averages of this shared machine (20 and more) can pass Stryker's
  // default 5 minutes, which fails the whole run (the former local-engine host piece, which ran the
  // process-spawning engine suites, took longer); a generous limit costs nothing when all is well.
  dryRunTimeoutMinutes: 40,
  // live: each mutant's result as soon as it is known (tools/mutate/live-reporter.mjs), reports/live/<id>.log.
  appendPlugins: ["./tools/mutate/live-reporter.mjs"],
  reporters: ["clear-text", "progress-append-only", "json", "live"],
  jsonReporter: { fileName: `reports/mutation/${id}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: `.stryker-tmp-${id}`,
  cleanTempDir: true,
  // Mutants in module-level code (constants, tables built at load) would need every test re-run in a fresh
  // process; they are left out (reported as Ignored) to keep runs within reach on this machine.
  ignoreStatic: true,
  thresholds: { high: 90, low: 80, break: null },
};
