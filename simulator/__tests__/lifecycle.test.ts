/**
 * Lifecycle of every operation kind on a manual clock: transitional status and operation_flag while it
 * runs, the busy refusal (409), the end state, failure outcomes, stuck operations, and 404 after delete.
 */
import { BUSY_MESSAGE } from "../errors";
import { OP_SECONDS, startTestSim, type TestSim } from "./harness";

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.close());
beforeEach(() => t.admin("POST", "/reset"));

describe("create", () => {
  it("answers creating, shows the op while it runs, refuses other writes, then is Running", async () => {
    const created = await t.call("POST", "/instance/create", {
      form: {
        location_id: 1, tier_id: 1, template_id: 1, hostname: "web-1", cpu: 2, memory: 2, storage: 30,
        username: "admin", password: "s3cretpass", use_public_ip: true, ssh_keys: ["ssh-ed25519 AAAA a@b"],
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.message).toBe("Vm berhasil dibuat");
    expect(created.body.data.status).toBe("creating");
    const uuid = created.body.data.uuid;

    const list = await t.call("GET", "/instance");
    expect(list.body.data.active_operation).toBe(1);
    expect(list.body.data.data[0]).toMatchObject({ uuid, status: "creating", operation_flag: 1 });

    const busy = await t.call("PATCH", `/instance/${uuid}/stop`);
    expect(busy.status).toBe(409);
    expect(busy.body.message).toBe(BUSY_MESSAGE);

    t.advance(OP_SECONDS);
    const detail = await t.detail(uuid);
    expect(detail).toMatchObject({ status: "Running", operation_flag: 0 });
    expect((await t.call("GET", "/instance")).body.data.active_operation).toBe(0);
    const state = await t.state();
    expect(state.instances[0].sshKeys).toEqual(["ssh-ed25519 AAAA a@b"]);
  });

  it("is not finished one millisecond before its duration", async () => {
    const uuid = await t.createInstance();
    t.clock!.advance(OP_SECONDS * 1000 - 1);
    expect((await t.detail(uuid)).status).toBe("creating");
    t.clock!.advance(1);
    expect((await t.detail(uuid)).status).toBe("Running");
  });
});

describe("power operations", () => {
  it("stop -> stopping -> Stopped, start -> starting -> Running, restart -> restarting -> Running", async () => {
    const uuid = await t.runningInstance();
    for (const [action, during, after] of [
      ["stop", "stopping", "Stopped"],
      ["start", "starting", "Running"],
      ["restart", "restarting", "Running"],
    ] as const) {
      const res = await t.call("PATCH", `/instance/${uuid}/${action}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ uuid, hostname: "web-1" });
      expect(await t.detail(uuid)).toMatchObject({ status: during, operation_flag: 1 });
      t.advance(OP_SECONDS);
      expect(await t.detail(uuid)).toMatchObject({ status: after, operation_flag: 0 });
    }
  });

  it("start on a running instance and stop on a stopped one change nothing and start no operation", async () => {
    const uuid = await t.runningInstance();
    expect((await t.call("PATCH", `/instance/${uuid}/start`)).status).toBe(200);
    expect((await t.detail(uuid)).operation_flag).toBe(0);
    await t.call("PATCH", `/instance/${uuid}/stop`);
    t.advance(OP_SECONDS);
    expect((await t.call("PATCH", `/instance/${uuid}/stop`)).status).toBe(200);
    expect(await t.detail(uuid)).toMatchObject({ status: "Stopped", operation_flag: 0 });
  });

  it("refuses to restart a stopped instance with a 422", async () => {
    const uuid = await t.runningInstance();
    await t.call("PATCH", `/instance/${uuid}/stop`);
    t.advance(OP_SECONDS);
    const res = await t.call("PATCH", `/instance/${uuid}/restart`);
    expect(res.status).toBe(422);
    expect(res.body.errors.status).toBeDefined();
  });
});

describe("resize and change tier", () => {
  it("resize shows resizing, applies the new size at the end and returns to the previous status", async () => {
    const uuid = await t.runningInstance();
    await t.call("PATCH", `/instance/${uuid}/stop`);
    t.advance(OP_SECONDS);
    const res = await t.call("PATCH", `/instance/${uuid}/resize`, { form: { cpu: 4, memory: 8, storage: 60 } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Virtual machine is resized successfully");
    expect(await t.detail(uuid)).toMatchObject({ status: "resizing", operation_flag: 1, cpu: "2 CPU" });
    t.advance(OP_SECONDS);
    expect(await t.detail(uuid)).toMatchObject({ status: "Stopped", cpu: "4 CPU", memory: "8192 MB", storage: "60 GB" });
  });

  it("refuses to shrink storage, to go under the template minimum, and dedicated CPU on a tier without it", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("PATCH", `/instance/${uuid}/resize`, { form: { cpu: 0, memory: 2, storage: 20, use_dedicated_cpu: true } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["cpu", "storage", "use_dedicated_cpu"]);
    expect(res.body.errors.storage[0]).toContain("30");
    expect((await t.detail(uuid)).operation_flag).toBe(0);
  });

  it("change-tier moves the price to the new tier when it finishes; the estimate predicts it", async () => {
    const uuid = await t.runningInstance();
    const before = await t.detail(uuid);
    const estimate = await t.call("GET", `/instance/${uuid}/change-tier/price`, { query: { tier_id: 3 } });
    expect(estimate.body.data.current_monthly_cost).toBe(before.estimated_monthly_price);
    const res = await t.call("PATCH", `/instance/${uuid}/change-tier`, { form: { tier_id: 3 } });
    expect(res.body.data).toEqual({ vm_uuid: uuid });
    expect((await t.detail(uuid)).status).toBe("resizing");
    t.advance(OP_SECONDS);
    const after = await t.detail(uuid);
    expect(after).toMatchObject({ status: "Running", tier_id: 3, tier: "Premium" });
    expect(after.estimated_monthly_price).toBe(estimate.body.data.estimated_new_monthly_cost);
    expect(after.price_per_hour).toBeGreaterThan(before.price_per_hour);
  });

  it("change-tier to an unknown tier is a 422 naming tier_id", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("PATCH", `/instance/${uuid}/change-tier`, { form: { tier_id: 99 } });
    expect(res.status).toBe(422);
    expect(res.body.errors.tier_id).toEqual(["The selected tier id is invalid."]);
  });
});

describe("reinstall and clone", () => {
  it("reinstall changes the template at the end and ends Running", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("PATCH", `/instance/${uuid}/reinstall`, { form: { template_id: 2 } });
    expect(res.status).toBe(200);
    expect((await t.detail(uuid)).status).toBe("reinstalling");
    t.advance(OP_SECONDS);
    expect(await t.detail(uuid)).toMatchObject({ status: "Running", os_name: "Debian 12" });
  });

  it("clone makes a new instance that goes creating -> Running with the source's size", async () => {
    const source = await t.runningInstance({ cpu: 4, memory: 4, storage: 40 });
    const res = await t.call("POST", `/instance/${source}/clone`, { form: { hostname: "web-2", location_id: 2, tier_id: 2 } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Instance is on cloning progress");
    const clone = res.body.data.uuid;
    expect(clone).not.toBe(source);
    expect(await t.detail(clone)).toMatchObject({ status: "creating", operation_flag: 1, hostname: "web-2", location: "Surabaya" });
    expect((await t.detail(source)).operation_flag).toBe(0);
    t.advance(OP_SECONDS);
    expect(await t.detail(clone)).toMatchObject({ status: "Running", cpu: "4 CPU", storage: "40 GB", tier: "Standard" });
  });
});

describe("delete", () => {
  it("shows deleting, then the instance is gone: 404 on detail and every instance route, absent from the list", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("DELETE", `/instance/${uuid}`, { form: { _method: "DELETE", remove_ip: true, remove_block_storage: false } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ uuid, hostname: "web-1" }]);
    expect((await t.detail(uuid)).status).toBe("deleting");
    t.advance(OP_SECONDS);
    const gone = await t.call("GET", `/instance/${uuid}/detail`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: "Instance not found." });
    expect((await t.call("PATCH", `/instance/${uuid}/start`)).status).toBe(404);
    expect((await t.call("DELETE", `/instance/${uuid}`, { form: { _method: "DELETE", remove_ip: 1, remove_block_storage: 1 } })).status).toBe(404);
    expect((await t.call("GET", "/instance")).body.data.data).toEqual([]);
  });

  it("accepts Laravel method spoofing: POST with _method=DELETE deletes", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("POST", `/instance/${uuid}`, { form: { _method: "DELETE", remove_ip: 0, remove_block_storage: 0 } });
    expect(res.status).toBe(200);
    expect((await t.detail(uuid)).status).toBe("deleting");
  });

  it("requires remove_ip, remove_block_storage and _method (api-spec.md §4.6), also on a real DELETE", async () => {
    const uuid = await t.runningInstance();
    const res = await t.call("DELETE", `/instance/${uuid}`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["_method", "remove_block_storage", "remove_ip"]);
    const noMethod = await t.call("DELETE", `/instance/${uuid}`, { form: { remove_ip: 1, remove_block_storage: 0 } });
    expect(noMethod.status).toBe(422);
    expect(noMethod.body.errors).toEqual({ _method: ["The  method field is required."] });
    expect((await t.detail(uuid)).status).toBe("Running");
  });
});

describe("snapshots", () => {
  it("create -> creating -> Ready (current state), rollback -> rollingback -> Stopped, delete -> deleting -> gone", async () => {
    const uuid = await t.runningInstance();
    const created = await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "before-upgrade", description: "pre" } });
    expect(created.status).toBe(200);
    expect(created.body.message).toBe("Creating snapshot...");
    const snap = created.body.data.snap_uuid;
    let list = (await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data;
    expect(list).toEqual([expect.objectContaining({ id: snap, status: "creating", current_hourly_price: null })]);
    expect((await t.detail(uuid)).operation_flag).toBe(1);
    expect((await t.call("PATCH", `/instance/${uuid}/update-hostname`, { form: { hostname: "x" } })).status).toBe(409);
    t.advance(OP_SECONDS);
    list = (await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data;
    expect(list[0]).toMatchObject({ status: "Ready", is_current_state: true });
    expect(list[0].current_hourly_price).toBeGreaterThan(0);
    expect((await t.detail(uuid)).status).toBe("Running");

    const rollback = await t.call("PATCH", `/instance/${uuid}/snapshot/${snap}/rollback`);
    expect(rollback.body.data).toEqual({ uuid });
    expect((await t.detail(uuid)).status).toBe("rollingback");
    t.advance(OP_SECONDS);
    expect((await t.detail(uuid)).status).toBe("Stopped");

    const del = await t.call("DELETE", `/instance/${uuid}/snapshot/${snap}/delete`);
    expect(del.body.data).toEqual({ vm_uuid: uuid, snap_uuid: snap });
    expect((await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data[0].status).toBe("deleting");
    t.advance(OP_SECONDS);
    expect((await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data).toEqual([]);
    expect((await t.call("PATCH", `/instance/${uuid}/snapshot/${snap}/rollback`)).status).toBe(404);
  });
});

describe("injected outcomes", () => {
  it("failNext makes the next operation of that kind end in Error with operation_flag 0, once", async () => {
    const uuid = await t.runningInstance();
    expect((await t.admin("POST", "/faults", { failNext: { kind: "stop", count: 1 } })).status).toBe(200);
    await t.call("PATCH", `/instance/${uuid}/stop`);
    t.advance(OP_SECONDS);
    expect(await t.detail(uuid)).toMatchObject({ status: "Error", operation_flag: 0 });
    // The next stop works again.
    await t.call("PATCH", `/instance/${uuid}/stop`);
    t.advance(OP_SECONDS);
    expect((await t.detail(uuid)).status).toBe("Stopped");
  });

  it("failNext accepts the client's operation id and fails a create", async () => {
    await t.admin("POST", "/faults", { failNext: { kind: "createInstance", count: 1 } });
    const uuid = await t.createInstance();
    t.advance(OP_SECONDS);
    expect(await t.detail(uuid)).toMatchObject({ status: "Error", operation_flag: 0 });
  });

  it("a failed snapshot shows status Error on the snapshot; the instance keeps its status", async () => {
    const uuid = await t.runningInstance();
    await t.admin("POST", "/faults", { failNext: { kind: "snapshot" } });
    await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "s1", description: "d" } });
    t.advance(OP_SECONDS);
    expect((await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data[0].status).toBe("Error");
    expect(await t.detail(uuid)).toMatchObject({ status: "Running", operation_flag: 0 });
  });

  it("stickNext leaves the operation running for ever; the admin can finish it", async () => {
    await t.admin("POST", "/faults", { stickNext: { kind: "create", count: 1 } });
    const uuid = await t.createInstance();
    t.advance(3600);
    expect(await t.detail(uuid)).toMatchObject({ status: "creating", operation_flag: 1 });
    expect((await t.call("DELETE", `/instance/${uuid}`, { form: { _method: "DELETE", remove_ip: 1, remove_block_storage: 0 } })).status).toBe(409);
    const finished = await t.admin("POST", `/instances/${uuid}/finish-operation`, { outcome: "success" });
    expect(finished.status).toBe(200);
    expect(await t.detail(uuid)).toMatchObject({ status: "Running", operation_flag: 0 });
  });

  // Every kind fails the same way: the thing it works on ends in Error and the instance is no longer busy.
  const startKind: Record<string, (uuid: string) => Promise<string>> = {
    create: async () => t.createInstance({ hostname: "fresh" }),
    clone: async (uuid) => (await t.call("POST", `/instance/${uuid}/clone`, { form: { hostname: "c", location_id: 1, tier_id: 1 } })).body.data.uuid,
    resize: async (uuid) => (await t.call("PATCH", `/instance/${uuid}/resize`, { form: { cpu: 4, memory: 4, storage: 40 } }), uuid),
    changeTier: async (uuid) => (await t.call("PATCH", `/instance/${uuid}/change-tier`, { form: { tier_id: 2 } }), uuid),
    stop: async (uuid) => (await t.call("PATCH", `/instance/${uuid}/stop`), uuid),
    restart: async (uuid) => (await t.call("PATCH", `/instance/${uuid}/restart`), uuid),
    reinstall: async (uuid) => (await t.call("PATCH", `/instance/${uuid}/reinstall`), uuid),
    delete: async (uuid) => (await t.call("DELETE", `/instance/${uuid}`, { form: { _method: "DELETE", remove_ip: 1, remove_block_storage: 0 } }), uuid),
  };
  it.each(Object.keys(startKind))("failNext %s: the instance ends in Error, operation_flag 0, and is usable again", async (kind) => {
    const source = await t.runningInstance();
    await t.admin("POST", "/faults", { failNext: { kind } });
    const uuid = await startKind[kind]!(source);
    expect((await t.detail(uuid)).operation_flag).toBe(1);
    t.advance(OP_SECONDS);
    expect(await t.detail(uuid)).toMatchObject({ status: "Error", operation_flag: 0 });
    expect((await t.call("PATCH", `/instance/${uuid}/start`)).status).toBe(200);
    t.advance(OP_SECONDS);
    expect((await t.detail(uuid)).status).toBe("Running");
  });

  it("failNext start and rollback end in Error too", async () => {
    const uuid = await t.runningInstance();
    const snap = (await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "s", description: "d" } })).body.data.snap_uuid;
    t.advance(OP_SECONDS);
    expect((await t.call("PATCH", `/instance/${uuid}/stop`)).status).toBe(200);
    t.advance(OP_SECONDS);
    await t.admin("POST", "/faults", { failNext: { kind: "start" } });
    await t.call("PATCH", `/instance/${uuid}/start`);
    t.advance(OP_SECONDS);
    expect((await t.detail(uuid)).status).toBe("Error");
    await t.admin("POST", "/faults", { failNext: { kind: "rollback" } });
    expect((await t.call("PATCH", `/instance/${uuid}/snapshot/${snap}/rollback`)).status).toBe(200);
    t.advance(OP_SECONDS);
    expect(await t.detail(uuid)).toMatchObject({ status: "Error", operation_flag: 0 });
  });

  it("a failed snapshot delete leaves the snapshot, in Error", async () => {
    const uuid = await t.runningInstance();
    const snap = (await t.call("POST", `/instance/${uuid}/snapshot/create`, { form: { name: "s", description: "d" } })).body.data.snap_uuid;
    t.advance(OP_SECONDS);
    await t.admin("POST", "/faults", { failNext: { kind: "deleteSnapshot" } });
    await t.call("DELETE", `/instance/${uuid}/snapshot/${snap}/delete`);
    t.advance(OP_SECONDS);
    expect((await t.call("GET", `/instance/${uuid}/snapshot/snapshots`)).body.data).toEqual([expect.objectContaining({ id: snap, status: "Error" })]);
  });

  it("rejects an unknown kind with a 400 naming it", async () => {
    const res = await t.admin("POST", "/faults", { failNext: { kind: "explode" } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("explode");
  });
});
