/**
 * The page size of the every-page readers on a host that takes less than LIST_ALL_PAGE_SIZE (api-spec.md §8 publishes
 * no maximum): the maximum its refusal names, or none; kept per list, never applied to a caller's own page size.
 */
import { LIST_ALL_PAGE_SIZE } from "../areas/util";
import { ValidationError } from "../errors";
import { mockClient } from "./helpers";

const page = (items: number, current: number, pages: number) => ({
  message: "ok",
  data: { data: Array.from({ length: items }, (_, i) => ({ id: `r-${current}-${i}`, destination_port: "22", protocol: "tcp", action: "A" })), page: { total: 0, count: items, per_page: items, current_page: current, total_pages: pages } },
});
const refusal = (text: string) => ({ message: text, errors: { limit: [text] } });
const limits = (calls: ReturnType<ReturnType<typeof mockClient>["calls"]>) => calls.map((c) => new URL(c.fullUrl).searchParams.get("limit"));

it.each<[string, string, string | null]>([
  ["Laravel's max rule", "The limit field must not be greater than 25.", "25"],
  ["Laravel's older wording", "The limit may not be greater than 25.", "25"],
  ["a between rule", "The limit must be between 1 and 25.", "25"],
  ["Indonesian", "Limit tidak boleh lebih dari 25.", "25"],
  ["Indonesian 'maksimal'", "Limit maksimal 25 data.", "25"],
  ["no number", "The selected limit is invalid.", null],
])("%s: asked again with %s, and the next listing asks that at once", async (_what, text, expected) => {
  const { pool, client, calls } = mockClient({ maxRetries: 0 });
  const path = (p: string) => p.startsWith("/v1/instance/i-1/firewall/rules");
  pool.intercept({ path: (p) => path(p) && p.includes(`limit=${LIST_ALL_PAGE_SIZE}`), method: "GET" }).reply(422, refusal(text));
  pool.intercept({ path, method: "GET" }).reply(200, page(2, 1, 2));
  pool.intercept({ path, method: "GET" }).reply(200, page(1, 2, 2));
  pool.intercept({ path, method: "GET" }).reply(200, page(1, 1, 1));
  expect(await client.firewall.listAllRules("i-1")).toHaveLength(3);
  expect(await client.firewall.listAllRules("i-1")).toHaveLength(1);
  expect(limits(calls())).toEqual([String(LIST_ALL_PAGE_SIZE), expected, expected, expected]);
});

it("a refusal of the lowered size too is asked once more without a limit, then reported", async () => {
  const { pool, client, calls } = mockClient({ maxRetries: 0 });
  pool.intercept({ path: (p) => p.startsWith("/v1/instance?"), method: "GET" }).reply(422, refusal("The limit field must not be greater than 25.")).times(3);
  const error = await client.instances.listAll().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect(limits(calls())).toEqual([String(LIST_ALL_PAGE_SIZE), "25", null]);
});
