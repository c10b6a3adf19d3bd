import { operations } from "../operations";
import { operationIds, type OperationId } from "../routes";
import { samples, type Sample } from "./samples";

describe("response schemas", () => {
  it("exist for every operation, and every operation has at least one realistic sample", () => {
    for (const id of operationIds) {
      expect(operations[id].response).toBeDefined();
      expect(samples[id].length).toBeGreaterThan(0);
    }
  });

  const cases = operationIds.flatMap((id) =>
    (samples[id] as Sample<OperationId>[]).map((sample) => [id, sample.variant, sample] as const),
  );

  it.each(cases)("%s parses and normalizes: %s", (id, _variant, sample) => {
    const parsed = operations[id].response.safeParse(sample.wire);
    if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues, null, 2));
    const data = (parsed.data as { data: unknown }).data;
    if (sample.expected === null || typeof sample.expected !== "object") expect(data).toEqual(sample.expected);
    else expect(data).toMatchObject(sample.expected as object);
  });

  it("strips unknown fields instead of rejecting them", () => {
    const wire = samples.listInstances[0]!.wire;
    const parsed = operations.listInstances.response.parse(wire);
    expect(parsed.data.data[0]).not.toHaveProperty("ipv6_address");
  });

  it("rejects a value in no known format, naming the field path", () => {
    const wire = structuredClone(samples.getInstance[0]!.wire) as { data: Record<string, unknown> };
    wire.data.memory = "lots";
    const parsed = operations.getInstance.response.safeParse(wire);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["data", "memory"]);
    expect(parsed.error!.issues[0]!.message).toContain('"lots"');
  });

  it("rejects a detail without a required field (uuid)", () => {
    const wire = structuredClone(samples.getInstance[0]!.wire) as { data: Record<string, unknown> };
    delete wire.data.uuid;
    expect(operations.getInstance.response.safeParse(wire).success).toBe(false);
  });

  it("rejects a console answer with neither url nor webview", () => {
    expect(operations.getConsole.response.safeParse({ message: "ok", data: { password: "p" } }).success).toBe(false);
  });
});

/**
 * Optional fields of answers: a value that is there is kept, one that is missing or null becomes null (the
 * outputs and function results then say null, never undefined). Written against surviving mutants that turned
 * `v ?? null` into `v && null` (every present value lost) in fields no sample exercised.
 */
describe("optional answer fields keep their values", () => {
  it("backups, invoices, payment methods, instance rows, gateways", () => {
    const { schemas } = require("..") as typeof import("..");
    expect(schemas.backup.parse({ id: 7, schedule: "daily", current_cost: 1200, est_this_month: "3500", size: 20 })).toMatchObject({
      schedule: "daily", current_cost: 1200, est_this_month: 3500, size: 20,
    });
    expect(schemas.backup.parse({ id: 7 })).toMatchObject({ schedule: null, current_cost: null, est_this_month: null, size: null, attached_storage: [] });
    expect(schemas.topupInvoice.parse({ merchant_code: "M1", reference_number: "R9", amount: 50000, invoice_id: "inv-1" })).toMatchObject({
      merchant_code: "M1", reference_number: "R9", amount: 50000,
    });
    expect(schemas.paymentMethod.parse({ name: "BCA", code: "BC", image: "https://x/bca.png", fee: 4000, vat: 11 }).image).toBe("https://x/bca.png");
    expect(schemas.paymentMethod.parse({ name: "BCA", code: "BC", fee: 4000, vat: 11 }).image).toBeNull();
    const row = {
      uuid: "u", hostname: "h", ip_address: null, cpu: 1, memory: "1 GB", storage: "20GB", status: "Running", location: "Jakarta",
      tier: "Standard", price_per_hour: 100, estimated_monthly_cost: 72000, operation_flag: 0, created_at: "25 January 2024, 14:43",
    };
    expect(schemas.instanceListItem.parse({ ...row, cost: 1500 }).cost).toBe(1500);
    expect(schemas.instanceListItem.parse(row).cost).toBeNull();
    expect(schemas.vswitchGateway.parse({ uuid: "g-1", hostname: "gw", private_ip: "10.0.0.1" })).toEqual({ uuid: "g-1", hostname: "gw", private_ip: "10.0.0.1" });
    expect(schemas.vswitchGateway.parse(null)).toEqual({ uuid: null, hostname: null, private_ip: null });
  });
});

describe("answer fields read in several spellings", () => {
  const { schemas } = require("..") as typeof import("..");
  it.each([
    ["a", "A"], [" Accept ", "A"], ["ALLOW", "A"], ["d", "D"], ["Drop", "D"], ["deny", "D"], [" REJECT ", "D"], ["log", "log"],
  ])("firewall action %p is %p (an unknown one kept as sent)", (sent, read) => {
    expect(schemas.firewallAction.parse(sent)).toBe(read);
  });

  it("a public address is none only when both its id and address say so", () => {
    expect(schemas.publicIp.parse({ ip_id: "-", ip_address: "-" })).toBeNull();
    expect(schemas.publicIp.parse(null)).toBeNull();
    expect(schemas.publicIp.parse({ ip_id: "ip-1", ip_address: "-" })).toEqual({ ip_id: "ip-1", ip_address: null });
    expect(schemas.publicIp.parse({ ip_id: "-", ip_address: "203.0.113.7" })).toEqual({ ip_id: null, ip_address: "203.0.113.7" });
  });

  it("a vswitch's vid is text whether sent as a number or a string, null when absent", () => {
    const vid = schemas.vswitchDetail.shape.vid;
    expect(vid.parse(12)).toBe("12");
    expect(vid.parse("12")).toBe("12");
    expect(vid.parse(null)).toBeNull();
    expect(vid.parse(undefined)).toBeNull();
  });

  it("a block storage: status and location null when absent, '-' or '' as the attached instance means detached", () => {
    const disk = { id: "d-1", name: "data", size: "20 GB" };
    expect(schemas.blockStorage.parse(disk)).toMatchObject({ status: null, location: null, attached_instance_uuid: null });
    expect(schemas.blockStorage.parse({ ...disk, status: "Active", instance_uuid: "-" })).toMatchObject({ status: "Active", attached_instance_uuid: null });
    expect(schemas.blockStorage.parse({ ...disk, vm_uuid: "" }).attached_instance_uuid).toBeNull();
    expect(schemas.blockStorage.parse({ ...disk, instance: { uuid: "u-1", hostname: "web" } })).toMatchObject({ attached_instance_uuid: "u-1", attached_instance_hostname: "web" });
  });

  // PHP's json_encode writes an empty array as [] where an object is meant (Laravel hosts, real-api-facts.md):
  // read as the empty object or none, never a failed read (facts audit: a graph node with style: [] failed getVswitchGraph).
  it("an empty object written by PHP as [] is read as none or {}: gateway, list os, graph node data/style/position, payment methods", () => {
    expect(schemas.vswitchGateway.parse([])).toEqual({ uuid: null, hostname: null, private_ip: null });
    const row = {
      uuid: "u-1", hostname: "web", ip_address: null, cpu: "2", memory: "2 GB", storage: "30GB", status: "Running", os: [],
      location: "Jakarta", tier: "Basic", price_per_hour: "100", estimated_monthly_cost: 72000, cost: null, operation_flag: "0", created_at: "25 January 2024, 14:43",
    };
    expect(schemas.instanceListItem.parse(row).os).toBeNull();
    const node = schemas.vswitchGraphNode.parse({ id: 7, type: "instance", position: { x: "10.5", y: 0 }, data: [], style: [], parent: 3, draggable: 1 });
    expect(node).toEqual({ id: "7", type: "instance", position: { x: 10.5, y: 0 }, data: {}, style: {}, parent: "3", draggable: true });
    expect(schemas.vswitchGraphNode.parse({ id: "n", position: [] }).position).toBeNull();
    expect(schemas.paymentMethods.parse([])).toEqual({});
  });

  it("an instance's location and tier as {id, name} objects, operation_flag as a Laravel boolean: read as names and 0/1", () => {
    const row = {
      uuid: "u-1", hostname: "web", ip_address: null, cpu: 1, memory: "1 GB", storage: "20GB", status: "Running",
      location: { id: 1, name: "Jakarta" }, tier: { id: 2, name: "Standard" }, price_per_hour: 1, estimated_monthly_cost: 720, cost: null,
      operation_flag: true, created_at: "25 January 2024, 14:43",
    };
    expect(schemas.instanceListItem.parse(row)).toMatchObject({ location: "Jakarta", tier: "Standard", operation_flag: 1 });
    expect(schemas.instanceListItem.parse({ ...row, operation_flag: false }).operation_flag).toBe(0);
    expect(schemas.instanceList.parse({ data: [], page: { total: 0, count: 0, per_page: 10, current_page: 1, total_pages: 1 }, active_operation: null }).active_operation).toBe(0);
  });

  it("a credit history entry without a description has an empty one", () => {
    const entry = { id: 1, type: "Add", amount: "Rp10.000,00", balance_after: "Rp20.000,00", created_at: "2024-01-25 14:43" };
    expect(schemas.creditHistoryEntry.parse(entry).description).toBe("");
    expect(schemas.creditHistoryEntry.parse({ ...entry, description: "Top up" }).description).toBe("Top up");
  });
});
