/**
 * A host that pages the account's block storage list (`GET /storage/blocks`, client code only; the client's schema
 * accepts `{data, page}` for it, like the other lists seen in client code): a disk past the first page must still be
 * seen. Before the fix the client read page 1 only, so such a disk was "missing": create said it does not exist, a
 * refresh dropped an attachment that stands, and delete left the disk attached while reporting success.
 * The proxy below stands in for such a host: it pages that one route (at most 2 disks a page), the rest is the simulator.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { startHarness, up, type FullProvider, type SimHarness } from "./attachment-helpers";
import { blockStorageAttachmentProvider } from "../../provider/resources/block-storage-attachment/provider";
import type { BlockStorageAttachmentOutputs } from "../../provider/resources/block-storage-attachment/inputs";
import { resetContext } from "../../provider/context";
import { forgetDeployment } from "../../provider/registry";

const provider = blockStorageAttachmentProvider as FullProvider;
let h: SimHarness;
let proxy: http.Server;
const PER_PAGE = 2;

beforeAll(async () => {
  h = await startHarness();
  const target = new URL(h.sim.url); // http://127.0.0.1:PORT/v1
  proxy = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: url.pathname + url.search, method: req.method, headers: req.headers },
        (up) => {
          const body: Buffer[] = [];
          up.on("data", (c: Buffer) => body.push(c));
          up.on("end", () => {
            let text = Buffer.concat(body).toString("utf8");
            if (req.method === "GET" && url.pathname === "/v1/storage/blocks" && up.statusCode === 200) {
              const all = (JSON.parse(text) as { message: string; data: unknown[] });
              const page = Math.max(1, Number(url.searchParams.get("page") ?? 1));
              const perPage = Math.min(PER_PAGE, Number(url.searchParams.get("limit") ?? PER_PAGE) || PER_PAGE);
              const items = all.data.slice((page - 1) * perPage, page * perPage);
              const total = all.data.length;
              text = JSON.stringify({
                message: all.message,
                data: { data: items, page: { total, count: items.length, per_page: perPage, current_page: page, total_pages: Math.ceil(total / perPage) } },
              });
            }
            const headers = { ...up.headers };
            delete headers["content-length"];
            delete headers["transfer-encoding"];
            res.writeHead(up.statusCode ?? 502, headers);
            res.end(text);
          });
        },
      );
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
  process.env.VMHOST_BASE_URL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
  resetContext();
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await h?.close();
});

it("attaches, reads and detaches a disk listed past the first page of a paged block storage list", async () => {
  const state = await h.state();
  // the third Jakarta disk: on page 2 of the proxy's list (2 a page)
  const disk = state.blockStorages[2]!;
  expect(disk.locationId).toBe(1);
  const vm = await h.newInstance("paged-disk");
  const diskOf = async () => (await h.state()).blockStorages.find((b) => b.uuid === disk.uuid)!;

  const { id, outs } = await up<BlockStorageAttachmentOutputs>(provider, { blockStorageId: disk.uuid, instanceId: vm });
  expect(id).toBe(disk.uuid);
  expect((await diskOf()).instanceUuid).toBe(vm);
  expect(outs).toEqual(expect.objectContaining({ name: disk.name, sizeGb: disk.sizeGb }));

  // a refresh keeps the attachment that stands
  const read = await provider.read(id, outs);
  expect(read.id).toBe(id);

  // the delete (a later run) detaches it
  forgetDeployment();
  await provider.delete(id, outs);
  expect((await diskOf()).instanceUuid).toBeNull();
});

it("a refresh of an attachment past the first page keeps it (attached in the panel, adopted)", async () => {
  const state = await h.state();
  const disk = state.blockStorages[2]!;
  const vm = await h.newInstance("paged-disk-2");
  await h.admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: vm });
  const outs = { blockStorageId: disk.uuid, instanceId: vm, name: disk.name, sizeGb: disk.sizeGb };
  const read = await provider.read(disk.uuid, outs);
  expect(read).toEqual(expect.objectContaining({ id: disk.uuid }));
  forgetDeployment();
  await provider.delete(disk.uuid, outs);
  expect((await h.state()).blockStorages.find((b) => b.uuid === disk.uuid)!.instanceUuid).toBeNull();
});
