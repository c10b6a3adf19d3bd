import type { InstanceList, InstanceListItem } from "../api";
import { SharedHostnameListing, type ListingSource } from "./hostname-listing";
import { createGate } from "../../tests/support/gate";

const row = (uuid: string, hostname: string) => ({ uuid, hostname, status: "Running", operation_flag: 0 }) as unknown as InstanceListItem;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A fake account whose instance list is `rows` (as it is when each request reaches it), `perPage` a page;
 * every request is recorded; `hold()` keeps the next request unanswered until released.
 */
function fakeAccount(rows: InstanceListItem[], perPage = 100) {
  const requests: string[] = [];
  const gate = createGate();
  // the rate limiter: `queue.hold()` keeps the next list request from being sent (its onSend not yet called)
  const queue = createGate();
  const source: ListingSource = {
    list: async (query, options) => {
      await queue.passed();
      options?.onSend?.();
      requests.push(`list page=${query?.page}`);
      const page = query?.page ?? 1;
      // the account as the request reaches it (rows added while it is held are not in its answer)
      const data = rows.slice((page - 1) * perPage, page * perPage);
      const total = rows.length;
      await gate.passed();
      return { data, page: { total, count: data.length, per_page: perPage, current_page: page, total_pages: Math.max(1, Math.ceil(total / perPage)) }, active_operation: 0 } as InstanceList;
    },
    listAll: async (query) => {
      requests.push(`search=${query?.search}`);
      const found = rows.filter((r) => r.hostname.includes(query?.search ?? ""));
      await gate.passed();
      return found;
    },
  };
  return {
    rows,
    requests,
    source,
    hold: gate.hold,
    holdSend: queue.hold,
  };
}

describe("shared pre-create hostname listing", () => {
  it("answers many concurrent creates with one listing request, each with its exact hostname only", async () => {
    const account = fakeAccount([row("a", "web-1"), row("b", "web-10"), row("c", "db-1")]);
    const listing = new SharedHostnameListing(account.source);
    const names = Array.from({ length: 50 }, (_, i) => `web-${i}`);
    const answers = await Promise.all(names.map((n) => listing.named(n)));
    expect(account.requests).toEqual(["list page=1"]);
    expect(answers[1]!.map((r) => r.uuid)).toEqual(["a"]); // web-1: not web-10 (a search would match both)
    expect(answers[10]!.map((r) => r.uuid)).toEqual(["b"]);
    expect(answers[2]).toEqual([]);
    expect(listing.stats()).toEqual({ listings: 1, requests: 1, answered: 50 });
  });

  it("never answers a create with a listing that started before it asked (e.g. before its POST)", async () => {
    // The duplicate guard's rule: a listing taken before a create's POST must not serve the look for what that
    // POST made. Create A asks, its listing is in flight; meanwhile another create's POST lands (a VM named
    // web-2 appears) and create B asks about web-2: B must see web-2, i.e. be served by a later listing.
    const account = fakeAccount([row("a", "web-1")]);
    const listing = new SharedHostnameListing(account.source);
    const release = account.hold();
    const first = listing.named("web-2");
    await tick();
    await tick();
    expect(account.requests).toHaveLength(1); // in flight, held
    account.rows.push(row("new", "web-2")); // the POST of web-2 took effect while that listing was in flight
    const second = listing.named("web-2");
    await tick();
    expect(account.requests).toHaveLength(1); // the second ask waits for the next listing, not a parallel one
    release();
    expect(await first).toEqual([]); // the first listing may predate the VM: it only served the earlier ask
    expect((await second).map((r) => r.uuid)).toEqual(["new"]);
    expect(account.requests).toHaveLength(2);
  });

  it("asks arriving while a listing is in flight share the next one", async () => {
    const account = fakeAccount([row("a", "web-1")]);
    const listing = new SharedHostnameListing(account.source);
    const release = account.hold();
    const first = listing.named("web-0");
    await tick();
    await tick();
    const later = Array.from({ length: 20 }, (_, i) => listing.named(`web-${i + 1}`));
    await tick();
    release();
    await first;
    const answers = await Promise.all(later);
    expect(answers[0]!.map((r) => r.uuid)).toEqual(["a"]);
    expect(account.requests).toEqual(["list page=1", "list page=1"]); // the 20 asked once the first was sent: they share the next
  });

  it("listings start at least the interval apart: creates trickling in share one; a lone create does not wait", async () => {
    let now = 1_000;
    const sleeps: number[] = [];
    const clock = { now: () => now, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)) };
    const account = fakeAccount([row("a", "web-1")]);
    const listing = new SharedHostnameListing(account.source, 500, clock);
    await listing.named("web-0"); // the first listing goes at once
    expect(sleeps).toEqual([]);
    now += 100; // two more creates arrive 100 ms later: they wait for the interval, together
    const [a, b] = await Promise.all([listing.named("web-1"), listing.named("web-2")]);
    expect(a.map((r) => r.uuid)).toEqual(["a"]);
    expect(b).toEqual([]);
    expect(sleeps).toEqual([400]);
    expect(account.requests).toEqual(["list page=1", "list page=1"]);
  });

  it("a listing waiting in the rate limiter takes every create that asks before it is sent", async () => {
    // A fleet's creates reach the provider one by one while earlier creates fill the rate limiter: the listing
    // issued for the first ask waits there, and each later ask joins it instead of needing a listing of its own.
    const account = fakeAccount([row("a", "web-1")]);
    const listing = new SharedHostnameListing(account.source);
    const send = account.holdSend();
    const first = listing.named("web-0");
    await tick();
    await tick();
    const later = Array.from({ length: 20 }, (_, i) => listing.named(`web-${i + 1}`));
    await tick();
    expect(account.requests).toEqual([]); // still queued: nothing sent
    send();
    const answers = await Promise.all([first, ...later]);
    expect(answers[1]!.map((r) => r.uuid)).toEqual(["a"]);
    expect(account.requests).toEqual(["list page=1"]);
    expect(listing.stats()).toEqual({ listings: 1, requests: 1, answered: 21 });
    // once sent, a new ask waits for the next listing (the host may have answered before it was asked)
    const release = account.hold();
    const sentFirst = listing.named("web-1");
    await tick();
    await tick();
    expect(account.requests).toHaveLength(2);
    const afterSend = listing.named("web-2");
    account.rows.push(row("new", "web-2"));
    release();
    expect(await sentFirst).toHaveLength(1);
    expect((await afterSend).map((r) => r.uuid)).toEqual(["new"]);
    expect(account.requests).toHaveLength(3);
  });

  it("an account of several pages is never read as a whole (rows shift between pages): each hostname is searched", async () => {
    const rows = Array.from({ length: 150 }, (_, i) => row(`u${i}`, `vm-${i}`));
    const account = fakeAccount(rows, 100);
    const listing = new SharedHostnameListing(account.source);
    const [a, b] = await Promise.all([listing.named("vm-120"), listing.named("vm-7")]);
    expect(a.map((r) => r.uuid)).toEqual(["u120"]);
    expect(b.map((r) => r.uuid)).toEqual(["u7"]);
    expect(account.requests).toEqual(["list page=1", "search=vm-120", "search=vm-7"]);
    // Remembered: the next batch searches straight away.
    await Promise.all([listing.named("vm-1"), listing.named("vm-2")]);
    expect(account.requests.slice(3)).toEqual(["search=vm-1", "search=vm-2"]);
  });

  it("a failed listing fails its batch only; the next ask gets a new listing", async () => {
    const account = fakeAccount([row("a", "web-1")]);
    let fail = true;
    const listing = new SharedHostnameListing({
      list: async (q) => {
        if (fail) throw new Error("HTTP 503");
        return account.source.list(q);
      },
      listAll: account.source.listAll,
    });
    const failed = await Promise.allSettled([listing.named("web-1"), listing.named("web-2")]);
    expect(failed.map((f) => f.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    await expect(listing.named("web-1")).resolves.toHaveLength(1);
  });
});
