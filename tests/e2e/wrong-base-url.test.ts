/**
 * A wrong `vmhost:baseUrl` (no `/v1`, another version) makes every route answer 404 "The route ... could not be
 * found.": that is not "the object is gone" (audit: a refresh dropped the whole stack while the VM kept running and
 * billing, a destroy forgot the address, attachments, snapshot and rule it never removed). Through the local engine
 * and the real dynamic-provider host, checked against the simulator's state.
 */
import { runEngine } from "../../tools/local-engine";
import { show, simState, specSuite, vmArgs, VM_PASSWORD, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

async function runWithBaseUrl(s: Awaited<ReturnType<typeof suite.newStack>>, command: "refresh" | "destroy", program: Res[], baseUrl: string) {
  return runEngine({
    command,
    projectDir: s.dir,
    stateFile: s.stateFile,
    config: { "vmhost:baseUrl": baseUrl, spec: JSON.stringify({ resources: program }) },
    secrets: { "vmhost:apiKey": suite.sim.apiKey, vmPassword: VM_PASSWORD },
    env: { VMHOST_API_KEY: "", VMHOST_BASE_URL: "" },
  });
}

test("refresh with a base URL that lacks /v1 fails naming vmhost:baseUrl and drops nothing from the state", async () => {
  const s = await suite.newStack();
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("wrong-url-refresh") },
    { type: "FirewallRule", name: "fw", args: { instanceId: "$id:vm", protocol: "tcp", port: 22, action: "accept" } },
    { type: "Snapshot", name: "snap", args: { instanceId: "$id:vm", name: "base" } },
  ];
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const before = s.state().resources.map((r) => r.urn);
  const refreshed = await runWithBaseUrl(s, "refresh", program, suite.sim.url.replace(/\/v1$/, ""));
  expect(refreshed.ok).toBe(false);
  expect(show(refreshed)).toContain("vmhost:baseUrl");
  expect(s.state().resources.map((r) => r.urn)).toEqual(before);
  // and the right URL finds everything as it was
  const again = await s.run("preview", program, { refresh: true, expectNoChanges: true });
  expect(again.ok ? "" : show(again)).toBe("");
});

test("destroy with a wrong base URL removes nothing from the state that still exists", async () => {
  const s = await suite.newStack();
  const st = await simState(suite.sim);
  const vswitchId = st.vswitches.find((v) => v.name === "jkt-private-1")!.uuid;
  const diskId = st.blockStorages.find((b) => b.name === "jkt-data-50" && b.instanceUuid === null)!.uuid;
  const program: Res[] = [
    { type: "Instance", name: "vm", args: vmArgs("wrong-url-destroy") },
    { type: "PublicIp", name: "ip", args: { instanceId: "$id:vm" } },
    { type: "VswitchAttachment", name: "net", args: { instanceId: "$id:vm", vswitchId } },
    { type: "BlockStorageAttachment", name: "disk", args: { instanceId: "$id:vm", blockStorageId: diskId } },
  ];
  const up = await s.run("up", program);
  expect(up.ok ? "" : show(up)).toBe("");
  const destroyed = await runWithBaseUrl(s, "destroy", program, suite.sim.url.replace(/\/v1$/, "/v2"));
  expect(destroyed.ok).toBe(false);
  const vm = (await simState(suite.sim)).instances.find((i) => i.hostname === "wrong-url-destroy")!;
  // Nothing was removed, and the state still holds every resource (before: the address, the network and the disk
  // were recorded as deleted while still on the VM).
  expect(vm).toMatchObject({ vswitchUuid: vswitchId });
  expect(vm.publicIpAddress).not.toBeNull();
  expect(s.state().resources.filter((r) => r.urn.includes("vmhost:")).map((r) => r.name).sort()).toEqual(["disk", "ip", "net", "vm"]);
  const clean = await s.run("destroy", program);
  expect(clean.ok ? "" : show(clean)).toBe("");
});
