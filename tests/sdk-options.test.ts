/**
 * Resource options the SDK's classes adapt before the engine sees them (sdk/nodejs/options.ts, registration.ts):
 * - `ignoreChanges: ["*"]` is spelled out as the resource's own property names for the engine, because the real
 *   engine's Reset of `*` deletes every new input the old inputs lack (our `__ignoreChanges` among them), while the
 *   provider still gets the program's own list as `__ignoreChanges`;
 * - the `import` option is refused at construction with the fix (`adoptId`), since the real engine's ImportStep
 *   calls Read without the `__provider` property the dynamic-provider host needs.
 * What the registration carries is read off the mock monitor's RegisterResourceRequest.
 */
import * as pulumi from "@pulumi/pulumi";
import { FirewallRule, Instance, PublicIp, Snapshot, VswitchAttachment, BlockStorageAttachment } from "../sdk/nodejs";
import { engineIgnoreChanges, importOptionError } from "../sdk/nodejs/options";

jest.mock("@pulumi/pulumi/runtime/closure/serializeClosure", () => ({
  serializeFunction: async () => ({ text: "exports.handler = undefined;", containsSecrets: false }),
}));

const args = { locationId: 1, tierId: 1, templateId: 1, hostname: "web-1", cpu: 1, memory: 1, storage: 20, username: "ops", password: "Bench-passw0rd" };

interface Registered {
  ignoreChanges: string[];
  object: Record<string, unknown>;
}
const registered = new Map<string, Registered>();
const made: pulumi.Resource[] = [];
/** What constructing a resource threw (undefined when it was made: kept in `made`). */
function thrownBy(make: () => pulumi.Resource): unknown {
  try {
    made.push(make());
  } catch (e) {
    return e;
  }
  return undefined;
}
const settled = () => Promise.all(made.splice(0).map((r) => new Promise((resolve) => r.urn.apply(resolve))));

beforeAll(async () => {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "project", "stack", true);
  const monitor = pulumi.runtime.getMonitor() as unknown as { registerResource: (req: any, cb: unknown) => unknown };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) => {
    registered.set(req.getName(), { ignoreChanges: req.getIgnorechangesList(), object: req.getObject()?.toJavaScript() ?? {} });
    return register(req, cb);
  };
});
afterEach(settled);

describe('ignoreChanges ["*"]', () => {
  it("reaches the engine as every property name of the resource but the hidden __* inputs, and the provider as written", async () => {
    made.push(new Instance("star", args, { ignoreChanges: ["*"], replaceOnChanges: ["hostname"] }));
    await settled();
    const r = registered.get("star")!;
    expect(r.object.__ignoreChanges).toEqual(["*"]);
    expect(r.object.__replaceOnChanges).toEqual(["hostname"]);
    // every input, given or not (a property dropped from the program is kept from the state too, as "*" does)
    expect(r.ignoreChanges).toEqual(expect.arrayContaining(["cpu", "memory", "password", "sshKeys", "publicIp", "powerState", "deleteOptions", "adoptId", "timeouts"]));
    expect(r.ignoreChanges.filter((p) => p.startsWith("__") || p === "*")).toEqual([]);
    expect(new Set(r.ignoreChanges).size).toBe(r.ignoreChanges.length);
  });

  it("is spelled out for every resource class, each with its own optional inputs", async () => {
    const opts = { ignoreChanges: ["*"] };
    made.push(
      new PublicIp("ip", { instanceId: "i" }, opts),
      new Snapshot("snap", { instanceId: "i", name: "s" }, opts),
      new VswitchAttachment("vsw", { instanceId: "i", vswitchId: "v" }, opts),
      new BlockStorageAttachment("bs", { instanceId: "i", blockStorageId: "b" }, opts),
      new FirewallRule("fw", { instanceId: "i", protocol: "tcp", port: "22", action: "accept" } as never, opts),
    );
    await settled();
    expect(registered.get("ip")!.ignoreChanges).toEqual(expect.arrayContaining(["instanceId", "publicNetworkId", "rdns", "adoptId", "timeouts"]));
    expect(registered.get("snap")!.ignoreChanges).toEqual(expect.arrayContaining(["instanceId", "name", "description"]));
    expect(registered.get("vsw")!.ignoreChanges).toEqual(expect.arrayContaining(["instanceId", "vswitchId"]));
    expect(registered.get("bs")!.ignoreChanges).toEqual(expect.arrayContaining(["instanceId", "blockStorageId"]));
    expect(registered.get("fw")!.ignoreChanges).toEqual(expect.arrayContaining(["instanceId", "protocol", "port", "sourceIp", "action", "description"]));
    for (const name of ["ip", "snap", "vsw", "bs", "fw"]) {
      expect(registered.get(name)!.ignoreChanges.some((p) => p.startsWith("__") || p === "*")).toBe(false);
      expect(registered.get(name)!.object.__ignoreChanges).toEqual(["*"]);
    }
  });

  it("other paths reach the engine as written", async () => {
    made.push(new Instance("paths", args, { ignoreChanges: ["cpu", "deleteOptions.removePublicIp", "sshKeys[*]"] }));
    await settled();
    expect(registered.get("paths")!.ignoreChanges).toEqual(["cpu", "deleteOptions.removePublicIp", "sshKeys[*]"]);
  });

  it("engineIgnoreChanges: the three spellings of the key \"*\" are replaced in place, duplicates dropped", () => {
    expect(engineIgnoreChanges(["cpu", "*"], ["cpu", "memory", "__ignoreChanges"])).toEqual(["cpu", "memory"]);
    expect(engineIgnoreChanges(["[*]"], ["a", "__x"])).toEqual(["a"]);
    expect(engineIgnoreChanges(['["*"]', "z"], ["a"])).toEqual(["a", "z"]);
    expect(engineIgnoreChanges(["a.*", "b[*]"], ["a", "b"])).toEqual(["a.*", "b[*]"]);
    expect(engineIgnoreChanges(undefined, ["a"])).toBeUndefined();
  });
});

describe("the import option", () => {
  it("is refused at construction with the adoptId to use instead, for every resource class, before anything registers", () => {
    const cases: Array<[string, () => pulumi.Resource]> = [
      ["vmhost.Instance imp-web", () => new Instance("imp-web", args, { import: "0f1e2d3c-0000-4000-8000-000000000001" })],
      ["vmhost.PublicIp imp-ip", () => new PublicIp("imp-ip", { instanceId: "i" }, { import: "0f1e2d3c-0000-4000-8000-000000000001" })],
      ["vmhost.FirewallRule imp-fw", () => new FirewallRule("imp-fw", { instanceId: "i" } as never, { import: "0f1e2d3c-0000-4000-8000-000000000001" })],
    ];
    for (const [who, make] of cases) {
      const thrown = thrownBy(make);
      // A RunError: the language runtime prints its message alone (no stack, no util.inspect of the error).
      expect(pulumi.RunError.isInstance(thrown)).toBe(true);
      expect((thrown as Error).message).toBe(
        `${who}: the import resource option does not work for dynamic-provider resources; use adoptId: "0f1e2d3c-0000-4000-8000-000000000001" instead`,
      );
      expect(registered.has(who.split(" ")[1]!)).toBe(false);
    }
  });

  it("an id that is not a string (a JavaScript program passing an Output) is refused too; an empty one is no import", () => {
    expect(importOptionError("vmhost.Snapshot", "s", { import: pulumi.output("x") as never })).toBe(
      'vmhost.Snapshot s: the import resource option does not work for dynamic-provider resources; use adoptId: "<id>" instead',
    );
    expect(importOptionError("vmhost.Snapshot", "s", { import: "" })).toBeUndefined();
    expect(importOptionError("vmhost.Snapshot", "s", {})).toBeUndefined();
    expect(importOptionError("vmhost.Snapshot", "s", undefined)).toBeUndefined();
  });
});

describe("adoptId with deletedWith", () => {
  it("is refused for a snapshot or firewall rule (the engine would delete the adopted object with its VM unasked)", () => {
    const vm = new Instance("dw-vm", args);
    made.push(vm);
    const cases: Array<[string, () => pulumi.Resource]> = [
      ["vmhost.Snapshot dw-snap", () => new Snapshot("dw-snap", { instanceId: vm.id, name: "s", adoptId: "0f1e2d3c-0000-4000-8000-000000000002" }, { deletedWith: vm })],
      ["vmhost.FirewallRule dw-fw", () => new FirewallRule("dw-fw", { instanceId: vm.id, adoptId: "7" } as never, { deletedWith: vm })],
    ];
    for (const [who, make] of cases) {
      const thrown = thrownBy(make);
      expect(pulumi.RunError.isInstance(thrown)).toBe(true);
      expect((thrown as Error).message).toContain(`${who}: adoptId with the resource option deletedWith: the engine would delete this adopted`);
      expect((thrown as Error).message).toContain("Remove deletedWith");
    }
  });
  it("is fine apart, and for a PublicIp (its deletedWith release is documented)", () => {
    const vm = new Instance("dw-vm2", args);
    made.push(vm);
    made.push(new Snapshot("dw-own", { instanceId: vm.id, name: "s" }, { deletedWith: vm }));
    made.push(new Snapshot("dw-adopted", { instanceId: vm.id, name: "s", adoptId: "0f1e2d3c-0000-4000-8000-000000000003" }));
    made.push(new PublicIp("dw-ip", { instanceId: vm.id, adoptId: "0f1e2d3c-0000-4000-8000-000000000004" }, { deletedWith: vm }));
  });
});
