import { collectAll, paginate, type Page } from "../paginate";
import { mockClient } from "./helpers";

const pageOf = <T>(data: T[], current: number, total: number): Page<T> => ({
  data,
  page: { total: 99, count: data.length, per_page: 2, current_page: current, total_pages: total },
});

describe("paginate", () => {
  it("walks pages until current_page reaches total_pages", async () => {
    const asked: number[] = [];
    const items = await collectAll(async (page) => {
      asked.push(page);
      return pageOf([page * 10, page * 10 + 1], page, 3);
    });
    expect(items).toEqual([10, 11, 20, 21, 30, 31]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it("stops on an empty page even if the host over-reports total_pages", async () => {
    const asked: number[] = [];
    const items: number[] = [];
    for await (const item of paginate(async (page) => {
      asked.push(page);
      return pageOf(page === 1 ? [1] : [], page, 50);
    })) items.push(item);
    expect(items).toEqual([1]);
    expect(asked).toEqual([1, 2]);
  });

  it("instances.listAll fetches every page of GET /instance", async () => {
    const { pool, client } = mockClient();
    const row = (uuid: string) => ({
      uuid, hostname: uuid, ip_address: null, cpu: 1, memory: "1 GB", storage: "20GB", status: "Running", location: "Jakarta",
      tier: "Standard", price_per_hour: 1, estimated_monthly_cost: 720, cost: null, operation_flag: 0, created_at: "25 January 2024, 14:43",
    });
    const body = (rows: object[], current: number) => ({
      message: "ok",
      data: { data: rows, active_operation: 0, page: { total: 3, count: rows.length, per_page: 100, current_page: current, total_pages: 2 } },
    });
    pool.intercept({ path: "/v1/instance?limit=100&search=web&page=1", method: "GET" }).reply(200, body([row("a"), row("b")], 1));
    pool.intercept({ path: "/v1/instance?limit=100&search=web&page=2", method: "GET" }).reply(200, body([row("c")], 2));
    const all = await client.instances.listAll({ search: "web" });
    expect(all.map((i) => i.uuid)).toEqual(["a", "b", "c"]);
  });
});

describe("paginate: a host whose page counter lags", () => {
  it("stops once the page asked for reaches the total, even when the answer says an earlier page", async () => {
    const asked: number[] = [];
    const items = await collectAll(async (page) => {
      asked.push(page);
      // page 2 of 2 answered as "current_page: 1" (a lagging counter): there is no page 3 to ask for
      return { data: [page], page: { total: 2, count: 1, per_page: 1, current_page: 1, total_pages: 2 } };
    });
    expect(items).toEqual([1, 2]);
    expect(asked).toEqual([1, 2]);
  });
});

describe("collectAll: a list written to while it is read", () => {
  /** A list of ids served in pages of 2, with `total` counting what it holds when each page is read. */
  const served = (rows: string[]) => async (page: number): Promise<Page<string>> => ({
    data: rows.slice((page - 1) * 2, page * 2),
    page: { total: rows.length, count: 0, per_page: 2, current_page: page, total_pages: Math.max(1, Math.ceil(rows.length / 2)) },
  });

  it("reads it again when a row deleted from page 1 moved a row of page 2 onto page 1 (the row is not skipped)", async () => {
    const rows = ["a", "b", "c"];
    const read = served(rows);
    const asked: number[] = [];
    const items = await collectAll(async (page) => {
      asked.push(page);
      const answer = await read(page);
      if (asked.length === 1) rows.splice(0, 1); // another delete lands between page 1 and page 2
      return answer;
    });
    expect(items).toEqual(["b", "c"]);
    expect(asked).toEqual([1, 2, 1]);
  });

  it("takes its third read as it is when the list keeps changing (a bounded cost)", async () => {
    const rows = ["a", "b", "c"];
    const read = served(rows);
    let firstPageReads = 0;
    const items = await collectAll(async (page) => {
      const answer = await read(page);
      if (page === 1) rows.push(`new-${++firstPageReads}`);
      return answer;
    });
    expect(firstPageReads).toBe(3);
    expect(items.slice(0, 2)).toEqual(["a", "b"]);
  });

  it("reads an unchanged list once", async () => {
    const asked: number[] = [];
    const read = served(["a", "b", "c"]);
    await collectAll(async (page) => (asked.push(page), read(page)));
    expect(asked).toEqual([1, 2]);
  });
});
