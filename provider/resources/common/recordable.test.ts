import type * as pulumi from "@pulumi/pulumi";
import { ProviderError, ResourceInitError } from "./errors";
import { PROVIDER_KEY, withRecordableFailures } from "./recordable";

const SERIALIZED = "exports.handler = ...";

/** A provider whose create and update fail with the given error. */
function failingWith(error: Error): pulumi.dynamic.ResourceProvider {
  return {
    create: async () => { throw error; },
    update: async () => { throw error; },
  };
}

describe("withRecordableFailures (a VM recorded after a failed create stays refreshable and destroyable)", () => {
  it("gives an initialization failure of create the serialized provider of its inputs", async () => {
    const error = new ResourceInitError("did not settle", "vm-1", { hostname: "web" });
    await expect(withRecordableFailures(failingWith(error)).create({ hostname: "web", [PROVIDER_KEY]: SERIALIZED })).rejects.toBe(error);
    expect(error.properties).toEqual({ hostname: "web", [PROVIDER_KEY]: SERIALIZED });
  });
  it("does the same for update, from the new inputs", async () => {
    const error = new ResourceInitError("resize failed", "vm-1", { cpu: 2 });
    await expect(withRecordableFailures(failingWith(error)).update!("vm-1", { [PROVIDER_KEY]: "old" }, { [PROVIDER_KEY]: SERIALIZED })).rejects.toBe(error);
    expect(error.properties[PROVIDER_KEY]).toBe(SERIALIZED);
  });
  it("keeps a provider the error already carries, and leaves other errors and inputs without one alone", async () => {
    const carried = new ResourceInitError("x", "vm-1", { [PROVIDER_KEY]: "own" });
    await expect(withRecordableFailures(failingWith(carried)).create({ [PROVIDER_KEY]: SERIALIZED })).rejects.toBe(carried);
    expect(carried.properties[PROVIDER_KEY]).toBe("own");
    const bare = new ResourceInitError("x", "vm-1", {});
    await expect(withRecordableFailures(failingWith(bare)).create({})).rejects.toBe(bare);
    expect(bare.properties).toEqual({});
    const plain = new ProviderError("bad input");
    await expect(withRecordableFailures(failingWith(plain)).create({ [PROVIDER_KEY]: SERIALIZED })).rejects.toBe(plain);
    expect(Object.keys(plain)).not.toContain("properties");
  });
  it("adds no update to a provider that has none", () => {
    const createOnly: pulumi.dynamic.ResourceProvider = { create: async () => ({ id: "x" }) };
    expect(withRecordableFailures(createOnly).update).toBeUndefined();
  });
  it("gives the engine the message as the one reason when no reasons are named", () => {
    expect(new ResourceInitError("did not settle", "vm-1", {}).reasons).toEqual(["did not settle"]);
  });
  it("names the error class in what the dynamic-provider host logs (`${e}`)", () => {
    expect(String(new ResourceInitError("did not settle", "vm-1", {}))).toBe("ResourceInitError: did not settle");
    expect(String(new ProviderError("bad input"))).toBe("ProviderError: bad input");
  });
});
