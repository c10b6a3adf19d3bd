/**
 * Our resources register without Pulumi's per-output stack traces (sdk/nodejs/registration.ts): a 50-VM program
 * otherwise spends about 0.6 s source-mapping traces nobody reads before its first create. What must hold: the
 * traces are skipped unless PULUMI_DEBUG_PROMISE_LEAKS asks for them, the program's own stack trace limit is left
 * as it was, and an error thrown while registering still points at the program's line.
 */
import * as pulumi from "@pulumi/pulumi";
import { Instance } from "../sdk/nodejs/instance";

// The provider's closure serialization does not run inside jest's sandbox (and is not what is tested here).
jest.mock("@pulumi/pulumi/runtime/closure/serializeClosure", () => ({
  serializeFunction: async () => ({ text: "exports.handler = undefined;", containsSecrets: false }),
}));

/** Resources made by the tests: their registrations finish before the test ends. */
const made: pulumi.Resource[] = [];
const registered = () => Promise.all(made.splice(0).map((r) => new Promise((resolve) => r.urn.apply(resolve))));

const args = {
  locationId: 1, tierId: 1, templateId: 1, hostname: "web-1", cpu: 1, memory: 1, storage: 20, username: "ops", password: "Bench-passw0rd",
};

/** How many stack traces with at least one frame were formatted while `run` ran. */
function tracesFormattedDuring(run: () => void): number {
  const original = Error.prepareStackTrace;
  let traces = 0;
  Error.prepareStackTrace = (error, frames) => {
    if (frames.length > 0) traces += 1;
    return original ? original(error, frames) : `${error}\n${frames.map((f) => `    at ${f}`).join("\n")}`;
  };
  try {
    run();
  } finally {
    Error.prepareStackTrace = original;
  }
  return traces;
}

describe("resource registration without per-output stack traces", () => {
  const debugBefore = process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  beforeAll(async () => {
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "project", "stack", true);
  });
  afterEach(async () => {
    await registered();
    if (debugBefore === undefined) delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    else process.env.PULUMI_DEBUG_PROMISE_LEAKS = debugBefore;
  });

  it("formats about one trace per resource (Pulumi's own source position), not one per output, and keeps the program's limit", () => {
    delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    const limit = Error.stackTraceLimit;
    const quiet = tracesFormattedDuring(() => made.push(new Instance("quiet", args)));
    expect(quiet).toBeLessThanOrEqual(2);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it("keeps every output's trace when PULUMI_DEBUG_PROMISE_LEAKS asks for them (the runtime prints them for leaked promises)", () => {
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "1";
    const debug = tracesFormattedDuring(() => made.push(new Instance("debug", args)));
    expect(debug).toBeGreaterThan(30); // an Instance has about 40 outputs
  });

  it("an error thrown while registering carries the stack of the program's call, and the limit is restored", () => {
    delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    const limit = Error.stackTraceLimit;
    let thrown: unknown;
    try {
      // Pulumi refuses a parent that is not a resource, synchronously in the Resource constructor.
      new Instance("orphan", args, { parent: {} as pulumi.Resource });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/parent is not a valid Resource/);
    expect((thrown as Error).stack).toContain("sdk-registration.test.ts");
    expect(Error.stackTraceLimit).toBe(limit);
  });
});
