import type * as pulumi from "@pulumi/pulumi";
import { IGNORE_CHANGES_KEY, ignoredInputs, withIgnoreChanges, withIgnoredKept } from "./ignore-changes";

describe("withIgnoredKept", () => {
  const olds = { cpu: 2, memory: 4, hostname: "web", deleteOptions: { removePublicIp: false, removeBlockStorage: true } };
  it("takes the state's value at each ignored path and drops the option", () => {
    expect(withIgnoredKept(olds, { cpu: 1, memory: 1, hostname: "web", [IGNORE_CHANGES_KEY]: ["cpu", "memory"] })).toEqual({ cpu: 2, memory: 4, hostname: "web" });
  });
  it("nested paths change only that property; element paths stand for the whole top-level property; * for every input", () => {
    const news = { cpu: 1, deleteOptions: { removePublicIp: true, removeBlockStorage: false }, sshKeys: ["a"] };
    expect(withIgnoredKept({ ...olds, sshKeys: ["b"] }, { ...news, [IGNORE_CHANGES_KEY]: ["deleteOptions.removePublicIp", "sshKeys[0]"] })).toEqual({
      cpu: 1, deleteOptions: { removePublicIp: false, removeBlockStorage: false }, sshKeys: ["b"],
    });
    expect(withIgnoredKept(olds, { cpu: 1, hostname: "other", [IGNORE_CHANGES_KEY]: ["*"] })).toEqual({ cpu: 2, hostname: "web" });
  });
  it("a path the state lacks is left unset (not managed), and news without the option pass through", () => {
    expect(withIgnoredKept({}, { powerState: "running", [IGNORE_CHANGES_KEY]: ["powerState"] })).toEqual({});
    // a nested path neither side has makes up no empty parent (which would be a change: timeouts {} vs none)
    expect(withIgnoredKept({ cpu: 1 }, { cpu: 1, [IGNORE_CHANGES_KEY]: ["timeouts.update"] })).toEqual({ cpu: 1 });
    expect(withIgnoredKept(olds, { cpu: 1 })).toEqual({ cpu: 1 });
  });
  it("tells which whole top-level inputs it kept (the Snapshot records no declaration for them), by the inputs it returned", () => {
    const kept = withIgnoredKept({ ...olds, sshKeys: ["b"] }, { cpu: 1, sshKeys: ["a"], [IGNORE_CHANGES_KEY]: ["cpu", "sshKeys[0]", "deleteOptions.removePublicIp"] });
    expect([...ignoredInputs(kept)].sort()).toEqual(["cpu", "sshKeys"]);
    expect([...ignoredInputs(withIgnoredKept(olds, { cpu: 1, hostname: "x", [IGNORE_CHANGES_KEY]: ["*"] }))].sort()).toEqual(["cpu", "hostname"]);
    expect(ignoredInputs(withIgnoredKept(olds, { cpu: 1 })).size).toBe(0);
    expect(ignoredInputs({ ...kept }).size).toBe(0); // a copy is other inputs
    expect(ignoredInputs(undefined).size).toBe(0);
  });
});

describe("withIgnoreChanges", () => {
  const seen: { op: string; news: unknown }[] = [];
  const inner: pulumi.dynamic.ResourceProvider = {
    check: async (_olds, news) => ({ inputs: news }),
    diff: async (_id, olds, news) => {
      seen.push({ op: "diff", news });
      return { changes: JSON.stringify(olds.cpu) !== JSON.stringify(news.cpu) };
    },
    create: async (inputs) => {
      seen.push({ op: "create", news: inputs });
      return { id: "x", outs: inputs };
    },
    update: async (_id, _olds, news) => {
      seen.push({ op: "update", news });
      return { outs: news };
    },
  };
  const wrapped = withIgnoreChanges(inner);
  beforeEach(() => (seen.length = 0));

  it("check keeps the paths beside the inputs, and refuses a malformed option by name", async () => {
    expect(await wrapped.check!({}, { cpu: 1, [IGNORE_CHANGES_KEY]: ["cpu"] })).toEqual({ inputs: { cpu: 1, [IGNORE_CHANGES_KEY]: ["cpu"] } });
    expect(await wrapped.check!({}, { cpu: 1, [IGNORE_CHANGES_KEY]: "cpu" })).toEqual({
      failures: [{ property: "ignoreChanges", reason: 'ignoreChanges must be a list of property paths, e.g. ["cpu"]' }],
    });
  });
  it("a value changed outside Pulumi (refreshed into the state) is no change, and an update leaves it", async () => {
    const news = { cpu: 1, hostname: "b", [IGNORE_CHANGES_KEY]: ["cpu"] };
    expect(await wrapped.diff!("x", { cpu: 2, hostname: "a" }, news)).toEqual({ changes: false });
    await wrapped.update!("x", { cpu: 2, hostname: "a" }, news);
    expect(seen.at(-1)).toEqual({ op: "update", news: { cpu: 2, hostname: "b" } });
  });
  it("create gets the program's values without the option", async () => {
    await wrapped.create({ cpu: 1, [IGNORE_CHANGES_KEY]: ["cpu"] });
    expect(seen).toEqual([{ op: "create", news: { cpu: 1 } }]);
  });
});
