/**
 * The soak's judge (tools/soak/truth.ts): what counts as an orphan or a duplicate decides whether `make soak`
 * reports the safety promise as kept, so its rules are pinned here on hand-made states.
 */
import type { ResourceState, StackState } from "../tools/soak/engine";
import { compare, compareAfterDestroy, notAsDeclared, type SimTruth } from "../tools/soak/truth";

const vm = (uuid: string, hostname: string): SimTruth["instances"][number] => ({
  uuid, hostname, status: "Running", operationFlag: 0, vswitchUuid: null, operation: null,
  cpu: 1, memoryGb: 2, storageGb: 20, tierId: 1, password: "pw", publicIpUuid: null, rdns: null,
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
});
