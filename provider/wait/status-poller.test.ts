import type { InstanceList, InstanceListItem } from "../api";
import type { VmHostClient } from "../api";
import { currentQueuePlace, currentRequestDeadline, noteWriteSent, withRequestDeadline, type QueuePlace } from "../api/deadline";
import { InstanceStatusPoller, pollIntervalMs, statusPollerFor, TICK_SKIPPED } from "./status-poller";

const row = (uuid: string, status = "Running", operation_flag = 0) =>
  ({ uuid, hostname: uuid, status, operation_flag }) as unknown as InstanceListItem;

/** A list of `rows` served `perPage` at a time, recording every page request and the clock time of each. */
function fakeList(rows: InstanceListItem[], perPage = 100) {
  const requests: { page: number; at: number }[] = [];
  let now = 0;
  const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) };
  // `onSend`: the request leaves the rate limiter now (the poller closes the tick's batch of waits then)
  const listPage = async (page: number, onSend?: () => void): Promise<InstanceList> => {
    onSend?.();
    requests.push({ page, at: now });
    const data = rows.slice((page - 1) * perPage, page * perPage);
    const total_pages = Math.max(1, Math.ceil(rows.length / perPage));
    return { data, page: { total: rows.length, count: data.length, per_page: perPage, current_page: page, total_pages }, active_operation: 0 };
  };
  return { requests, clock, listPage, advance: (ms: number) => void (now += ms) };
}

describe("shared instance status poller", () => {
  it("answers many waiters with one list request per tick", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => row(`vm-${i}`, i % 2 ? "Running" : "creating", i % 2 ? 0 : 1));
    const list = fakeList(rows);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    const seen = await Promise.all(rows.map((r) => poller.status(r.uuid)));
    expect(list.requests).toHaveLength(1);
    expect(seen.map((s) => s?.status)).toEqual(rows.map((r) => r.status));
    // A second round of the same 50 waits: one more request, at least the interval after the first.
    await Promise.all(rows.map((r) => poller.status(r.uuid)));
    expect(list.requests).toHaveLength(2);
    expect(list.requests[1]!.at - list.requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(poller.stats()).toEqual({ ticks: 2, requests: 2, answered: 100, skipped: 0 });
  });

  it("leaves out a tick only watching waits asked for while the rate limit is busy; any other ask makes it", async () => {
    const rows = [row("vm-1", "creating", 1), row("vm-2", "creating", 1)];
    const list = fakeList(rows);
    let busy = true;
    const asked: number[] = [];
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock, { reachedWithin: (ms) => (asked.push(ms), busy) });
    // Watchers only, limit busy: no request, every watcher told so.
    expect(await Promise.all([poller.watch("vm-1"), poller.watch("vm-2")])).toEqual([TICK_SKIPPED, TICK_SKIPPED]);
    expect(list.requests).toHaveLength(0);
    expect(asked).toEqual([1000]); // "busy" = the limit was reached within the last second
    // One wait that needs the status (an idle wait, a wait past its end read) makes the tick for every asker.
    const [watched, needed] = await Promise.all([poller.watch("vm-1"), poller.status("vm-2")]);
    expect(list.requests).toHaveLength(1);
    expect(watched).toMatchObject({ uuid: "vm-1", status: "creating" });
    expect(needed).toMatchObject({ uuid: "vm-2", status: "creating" });
    // The limit no longer busy: watchers alone get their tick.
    busy = false;
    expect(await poller.watch("vm-1")).toMatchObject({ uuid: "vm-1" });
    expect(list.requests).toHaveLength(2);
    expect(poller.stats()).toEqual({ ticks: 2, requests: 2, answered: 3, skipped: 1 });
    // A left-out tick still spaces the ticks: the first one made after it started an interval later.
    expect(list.requests[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it("never answers a waiter with a tick that started before it asked", async () => {
    const rows = [row("vm-1", "Running", 0)];
    const list = fakeList(rows);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const poller = new InstanceStatusPoller(async (page, onSend) => {
      onSend?.(); // sent: the host may answer before what follows
      calls += 1;
      if (calls === 1) await gate; // the first tick is in flight...
      return list.listPage(page);
    }, 1000, list.clock);
    const first = poller.status("vm-1");
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    rows[0] = row("vm-1", "stopping", 1); // ...an operation starts, and a new wait asks
    const second = poller.status("vm-1");
    release();
    await first;
    expect((await second)?.status).toBe("stopping");
    expect(calls).toBe(2);
  });

  it("never has two ticks in flight: waits asking during a slow tick share the one after it", async () => {
    // A tick held up (by a busy rate limiter) must not let further ticks queue up behind it and go out together.
    const list = fakeList([row("vm-1"), row("vm-2"), row("vm-3")]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inFlight = 0;
    let most = 0;
    const poller = new InstanceStatusPoller(async (page, onSend) => {
      onSend?.();
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (list.requests.length === 0) await gate;
      const answer = await list.listPage(page);
      inFlight -= 1;
      return answer;
    }, 1000, list.clock);
    const first = poller.status("vm-1");
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    list.advance(5_000); // well past the interval while the first tick is still in flight
    const later = ["vm-1", "vm-2", "vm-3"].map((uuid) => poller.status(uuid));
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(inFlight).toBe(1);
    release();
    await first;
    await Promise.all(later);
    expect(most).toBe(1);
    expect(poller.stats().ticks).toBe(2);
  });

  it("a tick waiting in the rate limiter answers every wait that asks before it is sent", async () => {
    // Behind a fleet's queued requests a tick can wait seconds to be sent: a wait asking meanwhile gets that tick's
    // answer (the host reads the list after it asked) instead of one a whole interval later.
    const list = fakeList([row("vm-1"), row("vm-2", "stopping", 1)]);
    let send: () => void = () => undefined;
    const queued = new Promise<void>((resolve) => (send = resolve));
    const poller = new InstanceStatusPoller(async (page, onSend) => {
      if (list.requests.length === 0) await queued; // the first tick waits in the limiter
      return list.listPage(page, onSend);
    }, 1000, list.clock);
    const first = poller.status("vm-1");
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    const joined = poller.status("vm-2");
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    send();
    expect((await first)?.uuid).toBe("vm-1");
    expect((await joined)?.status).toBe("stopping");
    expect(list.requests).toHaveLength(1);
    expect(poller.stats()).toEqual({ ticks: 1, requests: 1, answered: 2, skipped: 0 });
  });

  it("reads further pages until every waited instance is found, but never more pages than instances still missing", async () => {
    const rows = Array.from({ length: 1100 }, (_, i) => row(`vm-${i}`));
    const list = fakeList(rows, 100);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    const four = await Promise.all(["vm-5", "vm-120", "vm-220", "vm-1050"].map((uuid) => poller.status(uuid)));
    // page 1: vm-5 (3 missing), page 2: vm-120 (2 missing, 2 pages read): the other two are left to their waits'
    // detail reads (two requests) rather than 9 more pages
    expect(four.map((r) => r?.uuid)).toEqual(["vm-5", "vm-120", undefined, undefined]);
    expect(list.requests.map((r) => r.page)).toEqual([1, 2]);
    // a lone wait of an old VM (multistack audit: every tick read all 11 pages): one page
    await expect(poller.status("vm-1050")).resolves.toBeUndefined();
    expect(list.requests.map((r) => r.page)).toEqual([1, 2, 1]);
    await expect(poller.status("vm-50")).resolves.toMatchObject({ uuid: "vm-50" });
  });

  it("a failed list request fails that tick's waiters only; the next tick works", async () => {
    const list = fakeList([row("vm-1")]);
    let fail = true;
    const poller = new InstanceStatusPoller(async (page) => {
      if (fail) throw new Error("HTTP 503");
      return list.listPage(page);
    }, 1000, list.clock);
    await expect(poller.status("vm-1")).rejects.toThrow("HTTP 503");
    fail = false;
    await expect(poller.status("vm-1")).resolves.toMatchObject({ uuid: "vm-1" });
  });
});

/** Lets every queued tick of the poller run to its end (they start after a setImmediate, then sleep on fake time). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe("shared instance status poller: spacing and paging", () => {
  it("waits that ask in the same moment share one tick; no extra tick follows", async () => {
    const list = fakeList([row("vm-1"), row("vm-2")]);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    await Promise.all([poller.status("vm-1"), poller.status("vm-2"), poller.status("vm-1")]);
    await settle();
    expect(list.requests).toHaveLength(1);
    expect(poller.stats()).toEqual({ ticks: 1, requests: 1, answered: 3, skipped: 0 });
  });

  it("a tick asked for after the interval has passed starts at once; one asked for sooner waits the rest of it", async () => {
    const list = fakeList([row("vm-1")]);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    await poller.status("vm-1");
    list.advance(1500);
    await poller.status("vm-1");
    expect(list.requests.map((r) => r.at)).toEqual([0, 1500]);
    list.advance(400);
    await poller.status("vm-1");
    expect(list.requests.map((r) => r.at)).toEqual([0, 1500, 2500]);
  });

  it("a tick with one injected-time waiter among real-time ones starts at once", async () => {
    const list = fakeList([row("vm-1"), row("vm-2")]);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    await poller.status("vm-1");
    await Promise.all([poller.status("vm-1"), poller.status("vm-2", { now: true })]);
    expect(list.requests.map((r) => r.at)).toEqual([0, 0]);
  });

  it("stops paging once every waited instance is found", async () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(`vm-${i}`));
    const list = fakeList(rows, 100);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    await expect(poller.status("vm-5")).resolves.toMatchObject({ uuid: "vm-5" });
    expect(list.requests.map((r) => r.page)).toEqual([1]);
  });

  it("one poller per client, listing full pages", async () => {
    const asked: unknown[] = [];
    const client = {
      instances: {
        list: async (query: unknown) => {
          asked.push(query);
          return { data: [row("vm-1")], page: { total: 1, count: 1, per_page: 100, current_page: 1, total_pages: 1 }, active_operation: 0 };
        },
      },
    } as unknown as VmHostClient;
    const poller = statusPollerFor(client);
    expect(statusPollerFor(client)).toBe(poller);
    await expect(poller.status("vm-1", { now: true })).resolves.toMatchObject({ uuid: "vm-1" });
    expect(asked).toEqual([{ limit: 100, page: 1 }]);
  });

  it("the interval: 0.9 s unless VMHOST_POLL_FAST_MS names a positive number", () => {
    expect(pollIntervalMs({})).toBe(900);
    expect(pollIntervalMs({ VMHOST_POLL_FAST_MS: "50" })).toBe(50);
    for (const bad of ["0", "-5", "soon", "Infinity"]) expect(pollIntervalMs({ VMHOST_POLL_FAST_MS: bad })).toBe(900);
  });
});

describe("shared instance status poller: injected time", () => {
  it("a wait on injected time starts its tick without the real-time interval", async () => {
    const list = fakeList([row("vm-1")]);
    const poller = new InstanceStatusPoller(list.listPage, 1000, list.clock);
    await poller.status("vm-1");
    await poller.status("vm-1", { now: true });
    expect(list.requests.map((r) => r.at)).toEqual([0, 0]);
  });
});

describe("a shared tick's place in the rate limiter's queue", () => {
  it("carries the nearest deadline of the waits it answers (their resources' timeouts), without being bounded by it", async () => {
    const rows = [row("vm-1", "creating", 1), row("vm-2", "creating", 1), row("vm-3", "creating", 1)];
    const list = fakeList(rows);
    const placedBy: (QueuePlace | undefined)[] = [];
    const bounded: (number | undefined)[] = [];
    const listPage = (page: number, onSend?: () => void) => {
      placedBy.push(currentQueuePlace());
      bounded.push(currentRequestDeadline());
      return list.listPage(page, onSend);
    };
    const poller = new InstanceStatusPoller(listPage, 1000, list.clock);
    await Promise.all([
      withRequestDeadline(90_000, () => poller.status("vm-1")),
      withRequestDeadline(8_000, () => poller.status("vm-2")),
      poller.status("vm-3"), // a wait outside any resource operation (a read)
    ]);
    expect(placedBy).toEqual([{ orderAt: 8_000, underway: false }]);
    expect(bounded).toEqual([undefined]);
    // asked by no resource operation: placed by arrival alone
    await poller.status("vm-3");
    expect(placedBy.at(-1)).toEqual({ orderAt: undefined, underway: false });
    // asked by an operation that has sent its write (its VM exists): the tick goes with the operations underway when
    // that operation's deadline is near (tight timeouts), and keeps its arrival order when it is not (a tick recurs:
    // always first, it would take most of a slow host's windows from the resources not started yet)
    const underwayDueBy = async (dueAt: number) => {
      await Promise.all([
        withRequestDeadline(dueAt, async () => {
          noteWriteSent();
          return poller.status("vm-1");
        }),
        poller.status("vm-3"),
      ]);
      return placedBy.at(-1);
    };
    const now = list.clock.now();
    expect(await underwayDueBy(now + 30_000)).toEqual({ orderAt: now + 30_000, underway: true });
    expect(await underwayDueBy(now + 30 * 60_000)).toEqual({ orderAt: now + 30 * 60_000, underway: false });
  });
});
