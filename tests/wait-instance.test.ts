import { createClient, type VmHostClient } from "../provider/api";
import { Deadline, WaitFailedError, WaitTimeoutError } from "../provider/wait/poll";
import { BusyError } from "../provider/api";
import { forgetDurations, durationsFor } from "../provider/wait/durations";
import { endEstimate, isFailureStatus, runInstanceOperation, sendWhenNotBusy, waitForInstanceGone, waitForInstanceSettled, waitUntilIdle } from "../provider/wait/instance";
import { setProgressSink } from "../provider/context";
import { statusPollerFor } from "../provider/wait/status-poller";
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
  const deadline = (ms: number, phase?: "create" | "update" | "delete") => new Deadline(ms, () => clock.now(), phase);

  beforeAll(async () => {
    clock = new ManualClock();
    sim = await startSimulator({ opSeconds: 10, clock });
    client = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
    setProgressSink(() => {});
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  /** A client of the same account whose limiter says the limit was reached lately (a fleet's requests queue). */
  const busyClient = (): VmHostClient => ({ ...client, rateLimit: { reachedWithin: () => true } });

  /** A VM whose create has ended, in a process that has learned no operation durations yet. */
  async function idleVmKnowingNothing(hostname: string): Promise<string> {
    forgetDurations();
    const uuid = await createVm(hostname);
    clock.advanceSeconds(10);
    return uuid;
  }

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
  /** Changes the simulator's instance behind the provider's back (admin API), as another tool or the console would. */
  async function outOfBand(uuid: string, patch: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${sim.adminUrl}/instances/${uuid}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(patch) });
    expect(res.status).toBe(200);
  }

  it("a VM already in Error before the operation is not refused: the wait ends when the operation's result shows", async () => {
    const uuid = await createVm("broken-then-renamed");
    clock.advanceSeconds(10);
    await outOfBand(uuid, { status: "Error" });
    const { detail } = await runInstanceOperation(
      client, uuid,
      { what: "rename", deadline: deadline(60_000), until: (d) => d.hostname === "repaired-1", clock: waitClock },
      () => client.instances.updateHostname(uuid, { hostname: "repaired-1" }),
    );
    expect(detail.hostname).toBe("repaired-1");
    expect(detail.status).toBe("Error");
  });

  it("a power change that ended before the first look, in a word the provider cannot read, is said after a grace, not at the deadline", async () => {
    const uuid = await createVm("stop-unread-word");
    clock.advanceSeconds(10);
    // the stop ran and ended before the wait's first look (a short operation on a loaded machine), in a host's own word
    await outOfBand(uuid, { status: "Nonaktif" });
    const started = clock.now();
    const stopped = (d: { status: string }) => d.status === "Stopped";
    const err = await waitForInstanceSettled(client, uuid, {
      what: `instance ${uuid} to be stopped`, deadline: deadline(1_800_000), until: stopped, untilIsStatusWord: true, clock: waitClock,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as Error).message).toContain('the instance reports status "Nonaktif", a word this provider does not know as running, stopped or failed');
    expect((err as Error).message).not.toContain("changed outside Pulumi");
    // after the grace (120 s), not at the 30-minute deadline as before
    expect(clock.now() - started).toBeGreaterThanOrEqual(120_000);
    expect(clock.now() - started).toBeLessThan(180_000);
    // a wait whose `until` is not a status word (a resize the host has not begun): the word says nothing of it, the
    // deadline decides as before
    const resize = await waitForInstanceSettled(client, uuid, {
      what: `instance ${uuid} to finish resize`, deadline: deadline(300_000), until: (d) => d.cpu === 4, clock: waitClock,
    }).catch((e: unknown) => e);
    expect(resize).toBeInstanceOf(WaitTimeoutError);
  });

  it("a VM that disappears during the wait ends it at once, naming the instance", async () => {
    const uuid = await createVm("vanishes-1");
    await outOfBand(uuid, { deleted: true });
    const started = clock.now();
    const err = await waitForInstanceSettled(client, uuid, { what: "create", deadline: deadline(3_600_000), clock: waitClock }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as Error).message).toContain(`instance ${uuid} no longer exists`);
    expect(clock.now() - started).toBeLessThan(60_000);
  });

  it("an operation on a VM that no longer exists is not sent", async () => {
    const uuid = await createVm("vanishes-2");
    clock.advanceSeconds(10);
    await outOfBand(uuid, { deleted: true });
    let sent = false;
    const err = await runInstanceOperation(client, uuid, { what: "rename", deadline: deadline(60_000), clock: waitClock }, async () => {
      sent = true;
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as Error).message).toMatch(new RegExp(`rename failed: instance ${uuid} no longer exists`));
    expect(sent).toBe(false);
  });

  it("waiting until idle: a VM in Error is idle (it can be deleted or repaired); a missing one is undefined", async () => {
    const uuid = await createVm("idle-1");
    clock.advanceSeconds(10);
    sim.setFaults({ failNext: { kind: "resize", count: 1 } });
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 }); // ends in Error
    const started = clock.now();
    const idle = await waitUntilIdle(client, uuid, { what: "idle", deadline: deadline(600_000), clock: waitClock });
    expect(idle?.status).toBe("Error");
    expect(idle?.operation_flag).toBe(0);
    expect(clock.now() - started).toBeGreaterThanOrEqual(1_000); // it waited for the resize to end
    await outOfBand(uuid, { deleted: true });
    expect(await waitUntilIdle(client, uuid, { what: "idle", deadline: deadline(600_000), clock: waitClock })).toBeUndefined();
  });

  it("waiting until idle times out naming the running operation", async () => {
    sim.setFaults({ stickNext: { kind: "resize", count: 1 } });
    const uuid = await createVm("idle-stuck");
    clock.advanceSeconds(10);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    const err = await waitUntilIdle(client, uuid, { what: "resize to end", deadline: deadline(120_000), clock: waitClock }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/waiting for resize to end \(last status seen: \w+ \(operation running\)\)/);
  });

  it("waiting for a delete: done when the VM is gone; a VM left in Error after the delete fails the wait at once", async () => {
    const uuid = await createVm("gone-1");
    clock.advanceSeconds(10);
    await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true });
    await waitForInstanceGone(client, uuid, { what: "deletion", deadline: deadline(600_000), clock: waitClock });
    expect(await client.instances.find(uuid)).toBeUndefined();

    const other = await createVm("gone-2");
    clock.advanceSeconds(10);
    sim.setFaults({ failNext: { kind: "delete", count: 1 } });
    await client.instances.delete(other, { removeIp: true, removeBlockStorage: true });
    const started = clock.now();
    const err = await waitForInstanceGone(client, other, { what: `deletion of ${other}`, deadline: deadline(3_600_000), clock: waitClock }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitFailedError);
    expect((err as Error).message).toMatch(/the instance reports status Error/);
    expect(clock.now() - started).toBeLessThan(60_000);
  });

  it("a delete that shows Error while its operation still runs is not failed: the wait ends when the VM is gone", async () => {
    const uuid = await createVm("gone-error-midway");
    clock.advanceSeconds(10);
    await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true });
    clock.advanceSeconds(3);
    await outOfBand(uuid, { status: "Error" }); // the host reports Error mid-delete; its operation is still running
    await waitForInstanceGone(client, uuid, { what: "deletion", deadline: deadline(600_000), clock: waitClock });
    expect(await client.instances.find(uuid)).toBeUndefined();
  });

  it("the delete of a VM already in Error: its status says nothing until an operation was seen (a flag that rises late)", async () => {
    // destroy audit: a host whose operation flag rises a moment after the delete's answer would fail the delete of
    // every failed VM at its first look ("the instance reports status Error")
    const uuid = await createVm("gone-was-error");
    clock.advanceSeconds(10);
    await outOfBand(uuid, { status: "Error" });
    let sent = false;
    const lateFlagClock = {
      now: () => clock.now(),
      sleep: async (ms: number) => {
        if (!sent) await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true }); // acted upon after the first look
        sent = true;
        clock.advanceSeconds(ms / 1000);
      },
    };
    await waitForInstanceGone(client, uuid, { what: "deletion", deadline: deadline(600_000), clock: lateFlagClock, failedBefore: true });
    expect(await client.instances.find(uuid)).toBeUndefined();

    // no delete operation ever seen: failed once the grace has passed, saying so
    const stays = await createVm("gone-never-started");
    clock.advanceSeconds(10);
    await outOfBand(stays, { status: "Error" });
    const started = clock.now();
    const err = await waitForInstanceGone(client, stays, { what: "deletion", deadline: deadline(600_000), clock: waitClock, failedBefore: true }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/stays in status Error, and no delete operation was seen running in 10 s/);
    expect(clock.now() - started).toBeLessThan(30_000);
  });

  it("waiting for a delete that never ends times out with the last status", async () => {
    const uuid = await createVm("gone-stuck");
    clock.advanceSeconds(10);
    sim.setFaults({ stickNext: { kind: "delete", count: 1 } });
    await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true });
    const err = await waitForInstanceGone(client, uuid, { what: "deletion", deadline: deadline(120_000), clock: waitClock }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/waiting for deletion \(last status seen: \w+/);
  });

  /** The simulator's requests of `operation` from `from` on (its request log). */
  const countOf = (operation: string, from: number) => sim.requests().slice(from).filter((r) => r.operation === operation).length;

  it("polls the shared list while an operation runs: the detail is read once, when the list shows it idle", async () => {
    const uuid = await createVm("few-details");
    clock.advanceSeconds(10);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    let from = sim.requests().length;
    await waitUntilIdle(client, uuid, { what: "idle", deadline: deadline(600_000), clock: waitClock });
    expect(countOf("listInstances", from)).toBeGreaterThan(1);
    expect(countOf("getInstance", from)).toBe(1);
    await client.instances.resize(uuid, { cpu: 4, memory: 4, storage: 20 });
    from = sim.requests().length;
    await waitForInstanceSettled(client, uuid, { what: "resize", deadline: deadline(600_000), until: (d) => d.cpu === 4, clock: waitClock });
    expect(countOf("listInstances", from)).toBeGreaterThan(1);
    expect(countOf("getInstance", from)).toBe(1);
    // a failure the list shows ends the wait without reading the detail
    sim.setFaults({ failNext: { kind: "resize", count: 1 } });
    await client.instances.resize(uuid, { cpu: 2, memory: 4, storage: 20 });
    from = sim.requests().length;
    await expect(waitForInstanceSettled(client, uuid, { what: "resize", deadline: deadline(600_000), clock: waitClock })).rejects.toThrow(/reports status Error/);
    expect(countOf("getInstance", from)).toBe(0);
    // a delete: the list alone, until the VM is gone from it (then one detail read says 404)
    const other = await createVm("few-details-2");
    clock.advanceSeconds(10);
    await client.instances.delete(other, { removeIp: true, removeBlockStorage: true });
    from = sim.requests().length;
    await waitForInstanceGone(client, other, { what: "deletion", deadline: deadline(600_000), clock: waitClock });
    expect(countOf("listInstances", from)).toBeGreaterThan(1);
    expect(countOf("getInstance", from)).toBe(1);
  });

  it("an idle VM that does not show the operation's result yet is not settled: the wait runs to its deadline", async () => {
    const uuid = await createVm("never-resized");
    clock.advanceSeconds(10);
    const err = await waitForInstanceSettled(client, uuid, {
      what: `instance ${uuid} to have 8 CPUs`, deadline: deadline(60_000), until: (d) => d.cpu === 8, clock: waitClock,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/\(last status seen: Running\)/);
  });

  it("a host whose list still shows a deleted VM: the delete wait asks the detail, whose 404 ends it", async () => {
    const uuid = await createVm("stale-list");
    clock.advanceSeconds(10);
    const stale = (await client.instances.list({ search: "stale-list" })).data[0]!;
    expect(stale.operation_flag).toBe(0);
    await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true });
    clock.advanceSeconds(11); // the delete is done; this host's list does not know yet
    const lagging = createClient({ baseUrl: sim.url, apiKey: sim.apiKey, logger: false });
    const realList = lagging.instances.list.bind(lagging.instances);
    lagging.instances.list = async (query, options) => {
      const answer = await realList(query, options);
      return { ...answer, data: [...answer.data, stale] };
    };
    await waitForInstanceGone(lagging, uuid, { what: "deletion", deadline: deadline(60_000), clock: waitClock });
  });

  it("an operation queued behind one that never ends times out naming the idle wait", async () => {
    sim.setFaults({ stickNext: { kind: "resize", count: 1 } });
    const uuid = await createVm("idle-never");
    clock.advanceSeconds(10);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    const err = await runInstanceOperation(client, uuid, { what: "rename", deadline: deadline(60_000, "update"), clock: waitClock }, () =>
      client.instances.updateHostname(uuid, { hostname: "never" }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toContain(`waiting for rename: instance ${uuid} to be idle`);
    expect((err as Error).message).toContain("raise timeouts.update");
  });

  it("the per-instance queue counts against the deadline: a second operation on a busy VM fails when its deadline passes", async () => {
    const uuid = await createVm("queued-1");
    clock.advanceSeconds(10);
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstRunning!: () => void;
    const firstStarted = new Promise<void>((resolve) => (firstRunning = resolve));
    const first = runInstanceOperation(client, uuid, { what: "first", deadline: deadline(3_600_000), clock: waitClock }, async () => {
      firstRunning();
      await firstHolds;
    });
    await firstStarted;
    // real time: the queue's bound runs on the deadline's own clock
    const err = await runInstanceOperation(client, uuid, { what: "second", deadline: new Deadline(50, Date.now, "update") }, async () => undefined).catch((e: unknown) => e);
    releaseFirst();
    await first;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/second: other operations on the same instance \(from this deployment\) to finish first/);
  });

  it("a learned duration makes the next wait of that kind poll around its usual end, not all along", async () => {
    forgetDurations();
    const first = await createVm("learn-polls-1");
    let from = sim.requests().length;
    await waitForInstanceSettled(client, first, { what: "create", kind: "create", deadline: deadline(600_000), clock: waitClock });
    const unknownPolls = countOf("listInstances", from);
    const second = await createVm("learn-polls-2");
    from = sim.requests().length;
    await waitForInstanceSettled(client, second, { what: "create", kind: "create", deadline: deadline(600_000), clock: waitClock });
    expect(countOf("listInstances", from)).toBeLessThan(unknownPolls / 2);
    // the same for deletes (learned as kind "delete" by default)
    await client.instances.delete(first, { removeIp: true, removeBlockStorage: true });
    from = sim.requests().length;
    await waitForInstanceGone(client, first, { what: "deletion", deadline: deadline(600_000), clock: waitClock });
    const unknownDeletePolls = countOf("listInstances", from);
    await client.instances.delete(second, { removeIp: true, removeBlockStorage: true });
    from = sim.requests().length;
    await waitForInstanceGone(client, second, { what: "deletion", deadline: deadline(600_000), clock: waitClock });
    expect(countOf("listInstances", from)).toBeLessThan(unknownDeletePolls / 2);
    forgetDurations();
  });

  it("an operation kind that usually ends within two list ticks is looked at on the detail at once; if still running, the list watches it", async () => {
    const uuid = await idleVmKnowingNothing("short-kind");
    // an address add ends at once on this host: learned as short, its one settled detail read goes out without a tick
    durationsFor(client.baseUrl).learn("public-ip-add", 100);
    await client.network.addPublicIp(uuid);
    let from = sim.requests().length;
    const settled = await waitForInstanceSettled(client, uuid, { what: "add", kind: "public-ip-add", deadline: deadline(600_000), until: (d) => d.public_ip !== null, clock: waitClock });
    expect(settled.public_ip).not.toBeNull();
    expect(countOf("listInstances", from)).toBe(0);
    expect(countOf("getInstance", from)).toBe(1);
    // learned short but running long this time (10 s): one early detail read, then the shared list until it ends
    durationsFor(client.baseUrl).learn("resize-short", 100);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    from = sim.requests().length;
    await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-short", deadline: deadline(600_000), until: (d) => d.cpu === 2, clock: waitClock });
    expect(countOf("listInstances", from)).toBeGreaterThan(1);
    expect(countOf("getInstance", from)).toBe(2);
    // learned as taking two ticks (not within two) but running 10 s: no early detail read; the one made at the usual
    // end finds it running, and the detail is read again when the list shows it ended
    durationsFor(client.baseUrl).learn("resize-two-ticks", 2 * statusPollerFor(client).intervalMs);
    await client.instances.resize(uuid, { cpu: 3, memory: 2, storage: 20 });
    from = sim.requests().length;
    await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-two-ticks", deadline: deadline(600_000), until: (d) => d.cpu === 3, clock: waitClock });
    expect(countOf("getInstance", from)).toBe(2);
    expect(countOf("listInstances", from)).toBeGreaterThan(1);
    // that end read came too early: later waits of the kind in this process do without one (a fleet on a host whose
    // durations vary would otherwise pay a wasted read per VM), so the detail is read once, when the list shows the end
    forgetDurations();
    durationsFor(client.baseUrl).learn("resize-two-ticks", 2 * statusPollerFor(client).intervalMs);
    await client.instances.resize(uuid, { cpu: 4, memory: 2, storage: 20 });
    from = sim.requests().length;
    await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-two-ticks", deadline: deadline(600_000), until: (d) => d.cpu === 4, clock: waitClock });
    expect(countOf("getInstance", from)).toBe(1);
    forgetDurations();
  });

  it("a known kind's detail is read shortly after its usual end, without waiting for a list tick: when the end holds, that read settles it", async () => {
    const uuid = await idleVmKnowingNothing("end-read");
    const interval = statusPollerFor(client).intervalMs;
    durationsFor(client.baseUrl).learn("resize-known", 10_000); // the simulator's operations take 10 s
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    const from = sim.requests().length;
    const sentAt = clock.now();
    const settled = await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-known", deadline: deadline(600_000), until: (d) => d.cpu === 2, clock: waitClock });
    expect(settled.cpu).toBe(2);
    const reads = sim.requests().slice(from);
    // one detail read (the outputs need it anyway), made half an interval after the usual end
    expect(reads.filter((r) => r.operation === "getInstance").map((r) => Date.parse(r.time) - sentAt)).toEqual([10_000 + Math.ceil(interval / 2)]);
    // the list watched the time before it, from a tenth before the usual end, and no list tick came within an interval of it
    const ticks = reads.filter((r) => r.operation === "listInstances").map((r) => Date.parse(r.time) - sentAt);
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.every((t) => t >= 9_000 - interval || t === 0)).toBe(true);
    expect(ticks.every((t) => t <= 10_000 + interval / 2 - interval)).toBe(true);
    // learned as the middle between the last answer that saw it running and the settled one: about 10 s again
    expect(Math.abs(durationsFor(client.baseUrl).expected("resize-known")! - 10_000)).toBeLessThan(interval);
    forgetDurations();
  });

  it("a usual duration far too long (an outlier learned once) is forgotten by the first wait that ends before it", async () => {
    // multistack audit: 20 s learned for 0.05 s operations made each wait sleep 18 s, and each run learned its own
    // sleep back, about 3 % shorter; fleet audit: halving it per such wait still took one late run per half
    const uuid = await idleVmKnowingNothing("outlier");
    const interval = statusPollerFor(client).intervalMs;
    durationsFor(client.baseUrl).learn("resize-outlier", 80_000); // the simulator's operations take 10 s
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-outlier", deadline: deadline(600_000), until: (d) => d.cpu === 2, clock: waitClock });
    // seen running at the start, then settled when the wait woke (72 s): the end lies anywhere between, so what was
    // known is dropped, and the next wait polls as on a new host
    expect(durationsFor(client.baseUrl).expected("resize-outlier")).toBeUndefined();
    await client.instances.resize(uuid, { cpu: 3, memory: 2, storage: 20 });
    const endsAt = clock.now() + 10_000;
    await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-outlier", deadline: deadline(600_000), until: (d) => d.cpu === 3, clock: waitClock });
    expect(clock.now() - endsAt).toBeLessThanOrEqual(interval);
    expect(Math.abs(durationsFor(client.baseUrl).expected("resize-outlier")! - 10_000)).toBeLessThan(interval);
    forgetDurations();
  });

  it("a timer that fires a millisecond early still makes the end read (not a list tick, then the read a tick later)", async () => {
    const uuid = await idleVmKnowingNothing("end-read-early-timer");
    const interval = statusPollerFor(client).intervalMs;
    // The system clock's timers can fire a millisecond before Date.now() reaches their time.
    const earlyClock = { now: () => clock.now(), sleep: async (ms: number) => clock.advanceSeconds((ms > 1 ? ms - 1 : ms) / 1000) };
    durationsFor(client.baseUrl).learn("resize-early", 10_000);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    const from = sim.requests().length;
    const sentAt = clock.now();
    await waitForInstanceSettled(client, uuid, { what: "resize", kind: "resize-early", deadline: deadline(600_000), until: (d) => d.cpu === 2, clock: earlyClock });
    const reads = sim.requests().slice(from);
    expect(reads.filter((r) => r.operation === "getInstance")).toHaveLength(1);
    const lastTick = Math.max(...reads.filter((r) => r.operation === "listInstances").map((r) => Date.parse(r.time) - sentAt));
    expect(lastTick).toBeLessThanOrEqual(10_000 + interval / 2 - interval);
    forgetDurations();
  });

  it("while the host's rate limit paces the requests, the list does not watch before the end read: that read notices the end", async () => {
    const uuid = await idleVmKnowingNothing("end-read-busy");
    const interval = statusPollerFor(client).intervalMs;
    const busy = busyClient();
    durationsFor(client.baseUrl).learn("resize-busy", 10_000);
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    let from = sim.requests().length;
    let sentAt = clock.now();
    await waitForInstanceSettled(busy, uuid, { what: "resize", kind: "resize-busy", deadline: deadline(600_000), until: (d) => d.cpu === 2, clock: waitClock });
    expect(countOf("listInstances", from)).toBe(0);
    expect(sim.requests().slice(from).map((r) => [r.operation, Date.parse(r.time) - sentAt])).toEqual([["getInstance", 10_000 + Math.ceil(interval / 2)]]);
    // Nothing saw it running near its end: what was known stays (not the noticed time, which would creep later)
    expect(durationsFor(client.baseUrl).expected("resize-busy")).toBe(10_000);
    // The operation runs longer than usual: the end read finds it running, and from then on the list watches it
    // (the wait needs the list now, busy or not) until it ends.
    forgetDurations();
    durationsFor(client.baseUrl).learn("resize-busy", 5_000);
    await client.instances.resize(uuid, { cpu: 3, memory: 2, storage: 20 });
    from = sim.requests().length;
    sentAt = clock.now();
    const settled = await waitForInstanceSettled(busy, uuid, { what: "resize", kind: "resize-busy", deadline: deadline(600_000), until: (d) => d.cpu === 3, clock: waitClock });
    expect(settled.cpu).toBe(3);
    const ticks = sim.requests().slice(from).filter((r) => r.operation === "listInstances").map((r) => Date.parse(r.time) - sentAt);
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.every((t) => t > 5_000)).toBe(true);
    expect(countOf("getInstance", from)).toBe(2); // the early end read, and the settled detail
    forgetDurations();
  });

  it("a wait that started knowing nothing adopts a duration learned meanwhile (a fleet's first VM to finish) and reads at that end", async () => {
    const uuid = await idleVmKnowingNothing("adopts-duration");
    const interval = statusPollerFor(client).intervalMs;
    const busy = busyClient();
    await client.instances.resize(uuid, { cpu: 2, memory: 2, storage: 20 });
    const from = sim.requests().length;
    const sentAt = clock.now();
    // Another VM's resize of 10 s ends 3 s into this wait (learned by its own wait, in this process).
    let taught = false;
    const teachingClock = {
      now: () => clock.now(),
      sleep: async (ms: number) => {
        clock.advanceSeconds(ms / 1000);
        if (!taught && clock.now() - sentAt >= 3_000) {
          taught = true;
          durationsFor(client.baseUrl).learn("resize-adopt", 10_000);
        }
      },
    };
    await waitForInstanceSettled(busy, uuid, { what: "resize", kind: "resize-adopt", deadline: deadline(600_000), until: (d) => d.cpu === 2, clock: teachingClock });
    const reads = sim.requests().slice(from).map((r) => [r.operation, Date.parse(r.time) - sentAt] as const);
    // The list until it was learned (nothing known: fast polling), then nothing until the end read.
    expect(reads.filter(([op, at]) => op === "listInstances" && at < 3_000).length).toBeGreaterThan(1);
    expect(reads.filter(([, at]) => at >= 3_000 + interval)).toEqual([["getInstance", 10_000 + Math.ceil(interval / 2)]]);
    forgetDurations();
  });

  it("learns how long an operation kind took, on the waits' clock, so the next wait polls around it", async () => {
    forgetDurations();
    const uuid = await createVm("learns-1");
    await waitForInstanceSettled(client, uuid, { what: "create", kind: "create", deadline: deadline(600_000), clock: waitClock });
    const learned = durationsFor(client.baseUrl).expected("create");
    expect(learned).toBeGreaterThanOrEqual(10_000); // opSeconds 10 on the manual clock
    expect(learned).toBeLessThan(20_000);
    clock.advanceSeconds(1);
    await client.instances.delete(uuid, { removeIp: true, removeBlockStorage: true });
    await waitForInstanceGone(client, uuid, { what: "deletion", deadline: deadline(600_000), clock: waitClock });
    expect(durationsFor(client.baseUrl).expected("delete")).toBeGreaterThanOrEqual(10_000);
    forgetDurations();
  });
});

describe("where an operation most likely ended (what is learned)", () => {
  const interval = 900;
  it("answers at most two intervals apart: their middle", () => {
    expect(endEstimate(10_000, 10_900, undefined, interval)).toBe(10_450);
    expect(endEstimate(10_000, 11_800, 30_000, interval)).toBe(10_900);
  });
  it("further apart (watch ticks left out): the usual end where it fits between them, else the nearer answer", () => {
    expect(endEstimate(2_000, 10_450, 10_000, interval)).toBe(10_000);
    expect(endEstimate(undefined, 10_450, 10_000, interval)).toBe(10_000);
    expect(endEstimate(2_000, 10_450, 12_000, interval)).toBe(6_225); // ended before the usual end: between the answers
    expect(endEstimate(2_000, 10_450, 1_000, interval)).toBe(2_000); // still running after it
  });
  it("nothing known and no answer near the end: the middle, or the settled answer when nothing saw it running", () => {
    expect(endEstimate(2_000, 10_000, undefined, interval)).toBe(6_000);
    expect(endEstimate(undefined, 50, undefined, interval)).toBe(50);
  });
});

describe("failure statuses and busy answers", () => {
  it("Error, failed and failure end a wait, in any case and with spaces; other statuses do not", () => {
    for (const s of ["Error", "error", " FAILED ", "Failure"]) expect(isFailureStatus(s)).toBe(true);
    for (const s of ["Running", "Stopped", "errored", "creating", "failover", "no error", ""]) expect(isFailureStatus(s)).toBe(false);
  });

  const fakeTime = () => {
    let now = 0;
    return { now: () => now, sleep: async (ms: number) => void (now += ms) };
  };
  const busy = () => new BusyError({ operation: "updateHostname", method: "PUT", path: "/instance/{uuid}/hostname", status: 409 });

  it("sends again after busy answers until the API takes the request", async () => {
    const clock = fakeTime();
    let attempts = 0;
    const answer = await sendWhenNotBusy("rename", new Deadline(60_000, clock.now, "update"), async () => {
      if (++attempts <= 3) throw busy();
      return "renamed";
    }, clock);
    expect(answer).toBe("renamed");
    expect(attempts).toBe(4);
    expect(clock.now()).toBeGreaterThan(0); // it backed off between attempts
  });

  it("a busy answer at the deadline ends with a timeout that says the API kept answering busy; other errors at once", async () => {
    const clock = fakeTime();
    const err = await sendWhenNotBusy("rename", new Deadline(30_000, clock.now, "update"), async () => {
      throw busy();
    }, clock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/waiting for rename \(the API kept answering busy: HTTP 409\) \(last status seen: busy\); raise timeouts.update/);
    expect(clock.now()).toBeLessThanOrEqual(30_000);

    let attempts = 0;
    const other = await sendWhenNotBusy("rename", new Deadline(30_000, clock.now), async () => {
      attempts++;
      throw new Error("validation failed");
    }, clock).catch((e: unknown) => e);
    expect((other as Error).message).toBe("validation failed");
    expect(attempts).toBe(1);
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

  it("a poll answered 500 (also after the client's own retries) reads as 'status unknown' and the wait goes on", async () => {
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
