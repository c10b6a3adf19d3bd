/**
 * The soak's judge (tools/soak/truth.ts): what counts as an orphan or a duplicate decides whether `make soak`
 * reports the safety promise as kept, so its rules are pinned here on hand-made states.
 */
import type { ResourceState, StackState } from "../tools/soak/engine";
import { compare, compareAfterDestroy, type SimTruth } from "../tools/soak/truth";

const vm = (uuid: string, hostname: string) => ({ uuid, hostname, status: "Running", operationFlag: 0, vswitchUuid: null, operation: null });
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
});
