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
