/**
 * The engine's question to each dependent of a resource replaced delete-before-replace: its Diff with the inputs
 * that come from the replaced resource made unknown (pulumi/pulumi pkg/resource/deploy/step_generator.go
 * calculateDependentReplacements). Through the registered providers (every wrapper), no API call: the answers that
 * decide what the old VM's delete takes with it.
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import { resetContext } from "../../provider/context";
import { replacementsInProgress } from "../../provider/resources/common/replacements";
import { isDependentsQuestion, noteCheckedInputs, withDependentsQuestionsTold } from "../../provider/resources/common/asked-diffs";
import { objectDeleted, refuseDeletingVmWithKeptObjects, refuseWhileItsVmIsUnknown } from "../../provider/resources/common/kept-with-vm";

type Provider = Required<import("@pulumi/pulumi").dynamic.ResourceProvider>;
const provider = (name: keyof typeof providers): Provider => providers[name] as Provider;
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const VM = "2b1f6a1e-0d8e-4c53-9d55-6d1c1f4b2a10";
const ID = "7c4e8a52-1f0b-4a57-b1a9-0f2d3c4e5f60";

beforeAll(() => {
  // (nothing listens there: a call that reached the API would fail with another message)
  process.env.VMHOST_API_KEY = "test-key";
  process.env.VMHOST_BASE_URL = "http://127.0.0.1:9/v1";
  resetContext();
});
beforeEach(() => forgetDeployment());

describe("an object the API deletes with its VM, which Pulumi never deletes on its own", () => {
  const cases: [string, keyof typeof providers, Record<string, unknown>, Record<string, unknown>, string][] = [
    [
      "an adopted snapshot", "Snapshot",
      { instanceId: VM, name: "s", description: "d", status: "Ready", declaredName: "s", declaredDescription: "d", adoptId: ID },
      { instanceId: UNKNOWN, name: "s", description: "d", adoptId: ID },
      `Snapshot ${ID} was adopted (adoptId), so Pulumi never deletes it on its own, and a VM's delete takes its snapshots with it`,
    ],
    [
      "a snapshot renamed in the panel", "Snapshot",
      { instanceId: VM, name: "panel", description: "d", status: "Ready", declaredName: "s", declaredDescription: "d" },
      { instanceId: UNKNOWN, name: "s", description: "d" },
      `Snapshot ${ID} was changed in the panel (its name or description), so Pulumi never deletes it on its own, and a VM's delete takes its snapshots with it`,
    ],
    [
      "an adopted firewall rule", "FirewallRule",
      { instanceId: VM, protocol: "tcp", port: "22", action: "accept", adoptId: ID },
      { instanceId: UNKNOWN, protocol: "tcp", port: "22", action: "accept", adoptId: ID },
      `FirewallRule ${ID} was adopted (adoptId), so Pulumi never deletes it on its own, and a VM's delete takes its firewall rules with it`,
    ],
  ];

  it.each(cases)("%s, its VM replaced in this run: the question fails, before anything is deleted", async (_n, name, olds, news, message) => {
    replacementsInProgress.note("Instance:vm@1", VM); // (what the Instance's Diff notes when it replaces the VM)
    await expect(provider(name).diff(ID, olds, news)).rejects.toThrow(`${message}: its instance ${VM} is being replaced in this run.`);
  });

  it.each(cases)("%s, its instanceId unknown for another reason: no replace, and a delete of the VM in this run is refused", async (_n, name, olds, news, message) => {
    // (e.g. the preview of an Instance that newly adopts the VM: audit, refused before). Never a replace; the snapshot
    // renamed in the panel is refused as its update would refuse it (its Diff at preview says so: common/refresh-diffs.ts),
    // in the Diff that plans its step: the one whose inputs its Check returned (common/asked-diffs.ts)
    noteCheckedInputs(news);
    const answer = await provider(name).diff(ID, olds, news).then((d) => d.replaces ?? [], (e: unknown) => String(e));
    expect(answer).toEqual(olds.declaredName === "s" && olds.name === "panel" ? expect.stringMatching(/It was changed outside Pulumi \(in the panel\)/) : []);
    // `up --replace` of the VM: its Diff is skipped, and its delete comes next
    await expect(provider("Instance").delete(VM, { hostname: "vm", locationId: 1 })).rejects.toThrow(`instance ${VM} was not deleted: this run deletes it`);
    await expect(provider("Instance").delete(VM, { hostname: "vm", locationId: 1 })).rejects.toThrow(message);
  });

  it.each(cases)("%s, the engine's question with the state's inputs (before its Check), its VM not replaced by a Diff: no replace, no update refusal, and a delete of the VM in this run is refused", async (_n, name, olds, news, message) => {
    // (`up --replace` of the VM, delete-before-replace: the engine skips the VM's Diff and asks each dependent with the
    // state's inputs, the program's not yet known; a refusal of the snapshot's update is made at its own Diff)
    expect(await provider(name).diff(ID, olds, news).then((d) => d.replaces ?? [], (e: unknown) => String(e))).toEqual([]);
    await expect(provider("Instance").delete(VM, { hostname: "vm", locationId: 1 })).rejects.toThrow(message);
  });

  it("a create's Check of the same inputs earlier in the preview (a new rule of a new VM) does not make the question a planning Diff", async () => {
    // (a Check without olds is a create's, or a replacement's: no Diff follows it, so its answer stayed unmet and the
    // engine's question with the same inputs was taken for the Diff of that Check: the update refusals made there)
    const seen: boolean[] = [];
    const told = withDependentsQuestionsTold({
      create: async () => ({ id: ID }),
      check: async (_olds, news) => ({ inputs: news }),
      diff: async (id) => (seen.push(isDependentsQuestion(id)), { changes: false }),
    });
    const news = { instanceId: UNKNOWN, protocol: "tcp", port: "22", action: "accept" };
    await told.check!({}, news); // the new rule's Check (a create: no Diff follows)
    await told.diff!(ID, { ...news, instanceId: VM }, news); // the engine's question to the existing rule
    const olds = { ...news, instanceId: VM, port: "80" };
    await told.diff!(ID, olds, (await told.check!(olds, news)).inputs); // that rule's own Diff, after its Check
    expect(seen).toEqual([true, false]);
  });

  it("an object deleted on purpose first (a targeted destroy of both) no longer holds its VM's delete back", () => {
    refuseWhileItsVmIsUnknown("FirewallRule", ID, { instanceId: VM }, { instanceId: UNKNOWN }, "was adopted (adoptId)", "");
    expect(() => refuseDeletingVmWithKeptObjects(VM)).toThrow(`instance ${VM} was not deleted`);
    objectDeleted(ID);
    expect(() => refuseDeletingVmWithKeptObjects(VM)).not.toThrow();
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

describe("a VM whose disk grew in the panel (refreshed: the state's inputs still say 20 GB)", () => {
  const olds = { hostname: "b", locationId: 1, tierId: 1, templateId: 1, username: "deploy", cpu: 1, memory: 1, storage: 40, status: "Running" };
  // the state's inputs, b's hostname taken from a VM replaced delete-before-replace
  const news = { hostname: UNKNOWN, locationId: 1, tierId: 1, templateId: 1, username: "deploy", cpu: 1, memory: 1, storage: 20 };

  it("the engine's question (the state's inputs, before b's Check): no replace, and no refusal of an update it does not plan", async () => {
    const d = await provider("Instance").diff(ID, olds, news);
    expect(d.replaces ?? []).toEqual([]);
  });

  it("the Diff that plans b's step (the inputs its Check returned): the smaller disk is refused, naming storage", async () => {
    noteCheckedInputs(news);
    await expect(provider("Instance").diff(ID, olds, news)).rejects.toThrow(`instance ${ID} has a 40 GB disk and the program declares storage: 20; disks cannot shrink`);
  });

  it("in an up (no unknown value), the Diff refuses as before, Check or not", async () => {
    await expect(provider("Instance").diff(ID, olds, { ...news, hostname: "b" })).rejects.toThrow("disks cannot shrink");
  });
});
