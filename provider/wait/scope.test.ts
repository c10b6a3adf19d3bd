import type * as pulumi from "@pulumi/pulumi";
import { currentRequestDeadline } from "../api/deadline";
import { withRequestDeadlines } from "./scope";

describe("API calls of a resource operation carry its deadline", () => {
  it("create, update and delete each run under their own timeout; read has none", async () => {
    const seen: Record<string, number | undefined> = {};
    const provider: pulumi.dynamic.ResourceProvider = {
      create: async () => ((seen.create = currentRequestDeadline()), { id: "x", outs: {} }),
      update: async () => ((seen.update = currentRequestDeadline()), { outs: {} }),
      delete: async () => void (seen.delete = currentRequestDeadline()),
      read: async () => ((seen.read = currentRequestDeadline()), { id: "x", props: {} }),
    };
    const wrapped = withRequestDeadlines(provider);
    const before = Date.now();
    await wrapped.create({ timeouts: { create: "2m" } });
    await wrapped.update!("x", {}, { timeouts: { update: "3m" } });
    await wrapped.delete!("x", { timeouts: { delete: "90s" } });
    await wrapped.read!("x", {});
    const after = Date.now();
    expect(seen.create! - before).toBeGreaterThanOrEqual(120_000);
    expect(seen.create! - after).toBeLessThanOrEqual(120_000);
    expect(seen.update! - after).toBeLessThanOrEqual(180_000);
    expect(seen.update! - before).toBeGreaterThanOrEqual(180_000);
    expect(seen.delete! - before).toBeGreaterThanOrEqual(90_000);
    expect(seen.read).toBeUndefined();
    expect(currentRequestDeadline()).toBeUndefined();
  });
});
