/**
 * A host whose paged lists take a smaller page than the provider asks (api-spec.md §8: "maximum page size: not
 * shown"; the simulator's `wire.maxPageSize`): refused with Laravel's 422 on `limit`, or clamped. Creates (the
 * hostname listing before them, the settle polls) and every-page reads still work, judged by the simulator's state.
 */
import "./instance-env";
import { providers } from "../../provider";
import { createClient } from "../../provider/api";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const h = harnessSuite();
afterEach(() => h().clearFaults());

const limitsSent = (mark: number, operation: string) =>
  h().sim.requests().slice(mark).filter((r) => r.operation === operation).map((r) => [new URLSearchParams(r.query ?? "").get("limit"), r.status]);

it("a host that refuses limit=100 (422, 'must not be greater than 50'): the create goes through, asking 50 from then on", async () => {
  await h().setFaults({ wire: { maxPageSize: 50 } });
  const mark = h().mark();
  const vm = await up(instance, { ...validCreate, hostname: "page-size-50" });
  expect((await h().state()).instances.filter((i) => i.hostname === "page-size-50").map((i) => i.uuid)).toEqual([vm.id]);
  const listings = limitsSent(mark, "listInstances");
  expect(listings[0]).toEqual(["100", 422]);
  expect(listings.slice(1).every(([limit, status]) => limit === "50" && status === 200)).toBe(true);
});

it.each<[string, Record<string, unknown>]>([
  ["refused, naming no maximum: the host's default size", { message: "Invalid page size.", errors: { limit: ["Invalid page size."] } }],
  ["refused as a 400 with a message only", { message: "limit too large" }],
])("every page is read when the limit is %s", async (_what, refusal) => {
  const client = createClient({ baseUrl: h().sim.url, apiKey: h().sim.apiKey });
  for (let i = 0; i < 12; i += 1) await h().admin("POST", "/instances", { hostname: `paged-${i}` });
  const all = (await h().state()).instances.map((i) => i.uuid).sort();
  await h().setFaults({ respondNext: { operation: "listInstances", status: "errors" in refusal ? 422 : 400, ...refusal } });
  const mark = h().mark();
  expect((await client.instances.listAll()).map((i) => i.uuid).sort()).toEqual(all);
  const sent = limitsSent(mark, "listInstances");
  expect(sent[0]![0]).toBe("100");
  expect(sent.slice(1).map(([limit]) => limit)).toEqual(Array(Math.ceil(all.length / 10)).fill(null)); // the default 10 a page
});

it("a host that clamps the page to 5 (per_page 5): every VM is listed across the pages", async () => {
  await h().setFaults({ wire: { maxPageSize: 5, overPageSize: "clamp" } });
  const client = createClient({ baseUrl: h().sim.url, apiKey: h().sim.apiKey });
  const all = (await h().state()).instances.map((i) => i.uuid).sort();
  expect(all.length).toBeGreaterThan(5);
  expect((await client.instances.listAll()).map((i) => i.uuid).sort()).toEqual(all);
});

it("a caller's own page size is sent as asked: a refusal of it is the caller's answer", async () => {
  await h().setFaults({ wire: { maxPageSize: 50 } });
  const client = createClient({ baseUrl: h().sim.url, apiKey: h().sim.apiKey });
  await expect(client.instances.list({ limit: 80, page: 1 })).rejects.toThrow(/HTTP 422 .*limit: The limit field must not be greater than 50\./);
});
