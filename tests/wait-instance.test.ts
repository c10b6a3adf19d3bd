import { createClient, type VmHostClient } from "../provider/api";
import { Deadline, WaitFailedError, WaitTimeoutError } from "../provider/wait/poll";
import { runInstanceOperation, waitForInstanceSettled } from "../provider/wait/instance";
import { setProgressSink } from "../provider/context";
import { startSimulator, ManualClock } from "../simulator";

/**
 * The instance waits against the simulator with a manual clock: operations finish exactly when the test
 * advances time, and the waits' sleeps advance it, so nothing here waits for real.
 */
describe("instance waits", () => {
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let clock: ManualClock;
  let client: VmHostClient;
  // The waits' clock: the simulator's manual time, advanced by their sleeps.
  const waitClock = { now: () => clock.now(), sleep: async (ms: number) => clock.advanceSeconds(ms / 1000) };
  const deadline = (ms: number) => new Deadline(ms, () => clock.now());

  beforeAll(async () => {
    clock = new ManualClock();
    sim = await startSimulator({ opSeconds: 10, clock });
    client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
    setProgressSink(() => {});
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  async function createVm(hostname: string): Promise<string> {
    const created = await client.instances.create({
      locationId: 1, tierId: 1, templateId: 2, hostname, cpu: 1, memory: 1, storage: 20,
      username: "ops", password: "Sup3r-secret", usePublicIp: false,
    });
    return created.uuid;
  }

  it("waits out a running operation, then sends: a second change queued behind a resize succeeds", async () => {
    const uuid = await createVm("queue-1");
    clock.advanceSeconds(10);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    // the resize is running: the API would answer the hostname change "busy"
    const { detail } = await runInstanceOperation(
      client, uuid,
      { what: "rename", deadline: deadline(60_000), until: (d) => d.hostname === "queue-2", clock: waitClock },
      () => client.instances.updateHostname(uuid, { hostname: "queue-2" }),
    );
    expect(detail.hostname).toBe("queue-2");
    expect(detail.cpu).toBe(2); // the resize finished first
    const busy = sim.requests().filter((r) => r.status === 409);
    expect(busy).toHaveLength(0); // it waited for idle instead of hammering the API
  });

  it("ends at once with the failure status instead of running to the deadline", async () => {
    const uuid = await createVm("fails-1");
    clock.advanceSeconds(10);
    sim.setFaults({ failNext: { kind: "resize", count: 1 } });
    const started = clock.now();
    const err = await runInstanceOperation(
      client, uuid,
      { what: `instance ${uuid} to finish resize`, deadline: deadline(3_600_000), until: (d) => d.cpu === 2, clock: waitClock },
      () => client.instances.resize(uuid, { cpu: 2, memory: 1, storage: 20 }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as Error).message).toMatch(/resize failed: the instance reports status Error/);
    expect(clock.now() - started).toBeLessThan(60_000);
  });

  it("times out with the last status seen when an operation never finishes", async () => {
    sim.setFaults({ stickNext: { kind: "create", count: 1 } });
    const uuid = await createVm("stuck-1");
    const err = await waitForInstanceSettled(client, uuid, {
      what: `instance ${uuid} to be created`, deadline: deadline(120_000), until: (d) => d.status === "Running", clock: waitClock,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(new RegExp(`waiting for instance ${uuid} to be created \\(last status seen: creating`));
  });
});

describe("instance waits under transient API failures", () => {
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let clock: ManualClock;
  const waitClock = { now: () => clock.now(), sleep: async (ms: number) => clock.advanceSeconds(ms / 1000) };
  beforeAll(async () => {
    clock = new ManualClock();
    sim = await startSimulator({ opSeconds: 10, clock });
    setProgressSink(() => {});
  });
  afterAll(() => sim.close());

  it("a poll answered 500 (not retried by the client) reads as 'status unknown' and the wait goes on", async () => {
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false, retryDelayScale: 0 });
    const created = await client.instances.create({
      locationId: 1, tierId: 1, templateId: 2, hostname: "flaky-1", cpu: 1, memory: 1, storage: 20,
      username: "ops", password: "Sup3r-secret", usePublicIp: false,
    });
    let polls = 0;
    const realFind = client.instances.find.bind(client.instances);
    // the first two polls hit a 500, as a real host does now and then under load
    client.instances.find = async (uuid, options) => {
      polls++;
      if (polls <= 2) sim.setFaults({ errorRate: 1, errorStatus: 500 });
      try { return await realFind(uuid, options); } finally { sim.setFaults({ errorRate: 0 }); }
    };
    const detail = await waitForInstanceSettled(client, created.uuid, {
      what: "create", deadline: new Deadline(600_000, () => clock.now()), until: (d) => d.status === "Running", clock: waitClock,
    });
    expect(detail.status).toBe("Running");
    expect(polls).toBeGreaterThan(2);
  });

  it("a route that keeps failing still ends the wait quickly, with the API's error", async () => {
    const client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false, retryDelayScale: 0 });
    const created = await client.instances.create({
      locationId: 1, tierId: 1, templateId: 2, hostname: "broken-1", cpu: 1, memory: 1, storage: 20,
      username: "ops", password: "Sup3r-secret", usePublicIp: false,
    });
    sim.setFaults({ errorRate: 1, errorStatus: 500 });
    const started = clock.now();
    const err = await waitForInstanceSettled(client, created.uuid, {
      what: "create", deadline: new Deadline(3_600_000, () => clock.now()), clock: waitClock,
    }).catch((e: unknown) => e);
    sim.setFaults({ errorRate: 0 });
    expect((err as Error).name).toMatch(/ServerError/);
    expect(clock.now() - started).toBeLessThan(60_000);
  });
});
