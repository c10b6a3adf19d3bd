/**
 * The provider object every resource class hands to Pulumi (sdk/nodejs/stub.ts). Pulumi serializes a dynamic
 * provider once per OBJECT (a WeakMap in @pulumi/pulumi dynamic/index.ts serializeProvider), and each
 * serialization is a closure analysis (a few milliseconds each): a fresh object per resource made a 50-VM program
 * spend about 0.4 s more before its first create (measured through the local engine). That the serialized text holds no key and
 * loads the installed package is asserted through the real runtime in tests/host/instance-host.test.ts.
 */
import { providerStub } from "../sdk/nodejs/stub";

describe("provider stub", () => {
  it("is one object per resource type, so a fleet's provider is serialized once per type", () => {
    expect(providerStub("Instance")).toBe(providerStub("Instance"));
    expect(providerStub("PublicIp")).toBe(providerStub("PublicIp"));
    expect(providerStub("PublicIp")).not.toBe(providerStub("Instance"));
  });
});
