/**
 * The soak's judge (tools/soak/truth.ts): what counts as an orphan or a duplicate decides whether `make soak`
 * reports the safety promise as kept, so its rules are pinned here on hand-made states.
 */
import type { ResourceState, StackState } from "../tools/soak/engine";
import { compare, compareAfterDestroy, diskFates, notAsDeclared, userObjectsLost, userObjectsOf, type DeletedInstance, type SimTruth } from "../tools/soak/truth";

const vm = (uuid: string, hostname: string): SimTruth["instances"][number] => ({
  uuid, hostname, status: "Running", operationFlag: 0, vswitchUuid: null, operation: null,
  cpu: 1, memoryGb: 2, storageGb: 20, tierId: 1, password: "pw", publicIpUuid: null, rdns: null, dedicatedCpu: false,
});
const truthWith = (instances: SimTruth["instances"]): SimTruth => ({ instances, publicIps: [], blockStorages: [], vswitches: [], snapshots: [], firewallRules: [] });
const resource = (id: string, outputs: Record<string, unknown>): ResourceState => ({
  urn: "urn:vm", name: "vm", type: "Instance", id, inputs: { hostname: outputs.hostname }, outputs, dependencies: [],
});
const stateOf = (...resources: ResourceState[]): StackState => ({ resources, pending: [], forgotten: [] });

describe("soak truth", () => {
  it("a VM in no state is an orphan; beside a VM of the same hostname in the state, a duplicate", () => {
    expect(compare(stateOf(), truthWith([vm("a", "web")]), false).map((f) => f.kind)).toEqual(["orphan"]);
    expect(compare(stateOf(resource("a", { hostname: "web" })), truthWith([vm("a", "web"), vm("b", "web")]), false).map((f) => f.kind)).toEqual(["duplicate"]);
  });

  it("an unconfirmed create covers the one new VM of its hostname, not one listed before it was sent", () => {
    const unconfirmed = resource("unconfirmed-1", { hostname: "web", unconfirmedCreate: { existing: ["old"] } });
    expect(compare(stateOf(unconfirmed), truthWith([vm("new", "web")]), false)).toEqual([]);
    // two new ones: the record cannot account for both
    expect(compare(stateOf(unconfirmed), truthWith([vm("n1", "web"), vm("n2", "web")]), false).map((f) => f.kind)).toContain("duplicate");
    // and a successful up never leaves one that counts as lost
    expect(compare(stateOf(unconfirmed), truthWith([]), true)).toEqual([]);
  });

  it("a VM the user made to adopt is not an orphan while no adoption succeeded, also after destroy", () => {
    const owned = new Set(["mine"]);
    expect(compare(stateOf(), truthWith([vm("mine", "web")]), false, owned)).toEqual([]);
    expect(compareAfterDestroy(stateOf(), truthWith([vm("mine", "web")]), owned)).toEqual([]);
    expect(compareAfterDestroy(stateOf(), truthWith([vm("mine", "web")])).map((f) => f.kind)).toEqual(["orphan"]);
  });

  it("after a successful up, a VM that differs from the program in what it manages is not as declared; unset inputs are not compared", () => {
    const declared = { hostname: "web", cpu: 1, memory: 2, storage: 20, tierId: 1, password: "pw" };
    const state = stateOf(resource("a", { hostname: "web" }));
    expect(notAsDeclared(state, truthWith([vm("a", "web")]), { vm: declared })).toEqual([]);
    // a resize the up skipped
    expect(notAsDeclared(state, truthWith([vm("a", "web")]), { vm: { ...declared, cpu: 2 } }).map((f) => f.what)).toEqual([
      "up reported success and vm a has cpu 1, declared 2",
    ]);
    // a declared stop and address that did not happen
    const findings = notAsDeclared(state, truthWith([vm("a", "web")]), { vm: { ...declared, powerState: "stopped", publicIp: true } });
    expect(findings.map((f) => f.what)).toEqual([
      'up reported success and vm a has powerState "running", declared "stopped"',
      "up reported success and vm a has publicIp false, declared true",
    ]);
  });

  it("a VM in a private network nothing declares is a leak, unless an interrupted update (still pending) was joining it", () => {
    const inNetwork = { ...vm("a", "web"), vswitchUuid: "net-1" };
    const state = stateOf(resource("a", { hostname: "web" }));
    expect(compare(state, truthWith([inNetwork]), false).map((f) => f.kind)).toEqual(["leak"]);
    const joining: StackState = {
      ...state,
      pending: [{ type: "updating", urn: "urn:vm", name: "vm", resourceType: "Instance", id: "a", inputs: { hostname: "web", vswitchId: "net-1" } }],
    };
    expect(compare(joining, truthWith([inNetwork]), false)).toEqual([]);
  });

  const address = (uuid: string, seeded: boolean, instanceUuid: string | null = null): SimTruth["publicIps"][number] => ({
    uuid, address: `203.0.113.${uuid.length}`, locationId: 1, instanceUuid, seeded,
  });
  const disk = (uuid: string, instanceUuid: string | null = null): SimTruth["blockStorages"][number] => ({ uuid, locationId: 1, instanceUuid });

  it("the user's seeded reserved addresses and disks must outlive every phase: one gone is a user object lost, unless asked for", () => {
    const seeded: SimTruth = { ...truthWith([]), publicIps: [address("mine", true), address("auto", false)], blockStorages: [disk("d1"), disk("d2")] };
    const user = userObjectsOf(seeded, ["src"]);
    expect(user).toEqual({ reservedAddresses: ["mine"], disks: ["d1", "d2"], vms: ["src"] });
    const later: SimTruth = { ...truthWith([vm("src", "source")]), publicIps: [address("mine", true, "a")], blockStorages: [disk("d1", "a"), disk("d2")] };
    // (on a VM is still in the account; an auto address is the stack's, not the user's)
    expect(userObjectsLost(user, later)).toEqual([]);
    const afterDestroy: SimTruth = { ...truthWith([]), publicIps: [], blockStorages: [disk("d2")] };
    expect(userObjectsLost(user, afterDestroy).map((f) => f.object)).toEqual(["user:mine", "user:d1", "user:src"]);
    // a disk a destroy took with removeBlockStorage, as the program asked
    expect(userObjectsLost(user, afterDestroy, new Set(["d1"])).map((f) => f.kind)).toEqual(["user-object-lost", "user-object-lost"]);
  });

  it("deleteOptions.removeBlockStorage: the disks attached at a VM's delete go or stay as it asks, by the truth", () => {
    const removal = (uuid: string, removeBlockStorage: boolean, blockStorages: string[], by: DeletedInstance["by"] = "api"): DeletedInstance => ({
      uuid, hostname: uuid, by, requestedAt: 1, deletedAt: 2, removeIp: true, removeBlockStorage, blockStorages,
    });
    const toGo = { remove: true, why: "destroyed" };
    const toStay = { remove: false, why: "old half" };
    // to go, gone: as asked (no longer the user's to lose)
    const gone: SimTruth = { ...truthWith([]), blockStorages: [disk("d2")], deletedInstances: [removal("a", true, ["d1"])] };
    expect(diskFates(gone, 0, () => toGo)).toMatchObject({ findings: [], removed: ["d1"] });
    // to go, still there (the delete sent remove_block_storage=0): a leak
    const kept: SimTruth = { ...truthWith([]), blockStorages: [disk("d1"), disk("d2")], deletedInstances: [removal("a", false, ["d1"])] };
    expect(diskFates(kept, 0, () => toGo).findings.map((f) => [f.kind, f.object])).toEqual([["leak", "disk-kept:d1"]]);
    // to stay, gone: the user's disk lost (the same object userObjectsLost reports, counted once)
    expect(diskFates(gone, 0, () => toStay).findings.map((f) => [f.kind, f.object])).toEqual([["user-object-lost", "user:d1"]]);
    expect(diskFates(kept, 0, () => toStay)).toMatchObject({ findings: [], removed: [] });
    // survived a delete that was to keep it, then went with a later one that was to take it: both right
    const twice: SimTruth = { ...truthWith([]), blockStorages: [], deletedInstances: [removal("a", false, ["d1"]), removal("b", true, ["d1"])] };
    expect(diskFates(twice, 0, (d) => (d.uuid === "a" ? toStay : toGo))).toMatchObject({ findings: [], removed: ["d1"] });
    // nothing to expect (a VM no state held), the panel's delete, removals already checked: no finding
    expect(diskFates(gone, 0, () => undefined).findings).toEqual([]);
    expect(diskFates({ ...gone, deletedInstances: [removal("a", true, ["d1"], "panel")] }, 0, () => toStay).findings).toEqual([]);
    expect(diskFates(gone, 1, () => toStay).findings).toEqual([]);
  });

  it("an address kept as asked (removePublicIp: false) is the user's after destroy, not a leak", () => {
    const truth: SimTruth = { ...truthWith([]), publicIps: [address("kept", false)] };
    expect(compareAfterDestroy(stateOf(), truth).map((f) => f.kind)).toEqual(["leak"]);
    expect(compareAfterDestroy(stateOf(), truth, new Set(["kept"]))).toEqual([]);
  });

  it("dedicatedCpu and a fleet's other Instances are compared with what they declare", () => {
    const declared = { hostname: "web", cpu: 1, memory: 2, storage: 20, tierId: 1, password: "pw" };
    const state = stateOf(resource("a", { hostname: "web" }), { ...resource("b", { hostname: "db" }), name: "vm2", urn: "urn:vm2" });
    const truth = truthWith([vm("a", "web"), vm("b", "db")]);
    expect(notAsDeclared(state, truth, { vm: { ...declared, dedicatedCpu: true } }).map((f) => f.what)).toEqual([
      "up reported success and vm a has dedicatedCpu false, declared true",
    ]);
    expect(notAsDeclared(state, truth, { vm: declared, otherVms: { vm2: { ...declared, hostname: "db" } } })).toEqual([]);
    expect(notAsDeclared(state, truth, { vm: declared, otherVms: { vm2: { ...declared, hostname: "web" } } }).map((f) => f.what)).toEqual([
      'up reported success and vm2 b has hostname "db", declared "web"',
    ]);
    expect(notAsDeclared(state, truth, { vm: declared, otherVms: { vm3: declared } }).map((f) => f.what)).toEqual(["up reported success and the state has no vm3"]);
  });
});
