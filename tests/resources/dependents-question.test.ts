/**
 * The engine's question to each dependent of a resource replaced delete-before-replace: its Diff with the inputs
 * that come from the replaced resource made unknown (pulumi/pulumi pkg/resource/deploy/step_generator.go
 * calculateDependentReplacements). Through the registered providers (every wrapper), no API call: the answers that
 * decide what the old VM's delete takes with it.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";

type Provider = Required<import("@pulumi/pulumi").dynamic.ResourceProvider>;
const provider = (name: keyof typeof providers): Provider => providers[name] as Provider;
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const VM = "2b1f6a1e-0d8e-4c53-9d55-6d1c1f4b2a10";
const ID = "7c4e8a52-1f0b-4a57-b1a9-0f2d3c4e5f60";

beforeEach(() => forgetDeployment());

describe("an object the API deletes with its VM, which Pulumi never deletes on its own, refuses the question", () => {
  it.each<[string, keyof typeof providers, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      "an adopted snapshot", "Snapshot",
      { instanceId: VM, name: "s", description: "d", status: "Ready", declaredName: "s", declaredDescription: "d", adoptId: ID },
      { instanceId: UNKNOWN, name: "s", description: "d", adoptId: ID },
      `Snapshot ${ID} was adopted (adoptId), so Pulumi never deletes it on its own, but its instance is being replaced`,
    ],
    [
      "a snapshot renamed in the panel", "Snapshot",
      { instanceId: VM, name: "panel", description: "d", status: "Ready", declaredName: "s", declaredDescription: "d" },
      { instanceId: UNKNOWN, name: "s", description: "d" },
      `Snapshot ${ID} was changed in the panel (its name or description), so Pulumi never deletes it on its own`,
    ],
    [
      "an adopted firewall rule", "FirewallRule",
      { instanceId: VM, protocol: "tcp", port: "22", action: "accept", adoptId: ID },
      { instanceId: UNKNOWN, protocol: "tcp", port: "22", action: "accept", adoptId: ID },
      `FirewallRule ${ID} was adopted (adoptId), so Pulumi never deletes it on its own`,
    ],
  ])("%s", async (_n, name, olds, news, message) => {
    await expect(provider(name).diff(ID, olds, news)).rejects.toThrow(message);
  });

  it("the stack's own snapshot and rule are replaced (deleted first, taken again of the new VM)", async () => {
    const snap = await provider("Snapshot").diff(ID, { instanceId: VM, name: "s", status: "Ready", declaredName: "s" }, { instanceId: UNKNOWN, name: "s" });
    expect(snap.replaces).toEqual(["instanceId"]);
    const rule = await provider("FirewallRule").diff(ID, { instanceId: VM, protocol: "tcp", port: "22", action: "accept" }, { instanceId: UNKNOWN, protocol: "tcp", port: "22", action: "accept" });
    expect(rule.replaces).toEqual(["instanceId"]);
  });
});

describe("an adopted PublicIp", () => {
  const olds = { instanceId: VM, publicIpId: ID, ipAddress: "203.0.113.10", adoptId: ID };
  it("goes first (its delete takes the address off, kept in the account): replace while its instance is unknown", async () => {
    expect((await provider("PublicIp").diff(ID, olds, { instanceId: UNKNOWN, adoptId: ID })).replaces).toEqual(["instanceId"]);
  });
  it("moved to another known instance: refused, naming publicNetworkId to move the address", async () => {
    await expect(provider("PublicIp").diff(ID, olds, { instanceId: "9e8d7c6b-5a49-4382-9172-615243342516", adoptId: ID })).rejects.toThrow(
      `declare publicNetworkId: "${ID}" instead of adoptId`,
    );
  });
});
