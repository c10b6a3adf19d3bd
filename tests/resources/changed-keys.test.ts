/**
 * Every resource's diff names each input it finds changed (`changedKeys`). The replaceOnChanges option acts
 * on those keys only (provider/resources/common/replace-on-changes.ts), so an input a diff forgot to name
 * would silently stop the option working for it: each input of each resource is changed here in turn. (The
 * Instance's table in provider/resources/instance/diff.test.ts does the same for its inputs.)
 */
import type { ResourceDiff } from "../../provider/resources/common/replace-on-changes";
import { diffBlockStorageAttachment } from "../../provider/resources/block-storage-attachment/diff";
import { inputNames as blockStorageInputs, type BlockStorageAttachmentOutputs } from "../../provider/resources/block-storage-attachment/inputs";
import { diffFirewallRule } from "../../provider/resources/firewall-rule/diff";
import { inputsSchema as firewallRuleSchema } from "../../provider/resources/firewall-rule/inputs";
import { diffPublicIp } from "../../provider/resources/public-ip/diff";
import { inputNames as publicIpInputs, type PublicIpOutputs } from "../../provider/resources/public-ip/inputs";
import { diffSnapshot } from "../../provider/resources/snapshot/diff";
import { inputsSchema as snapshotSchema } from "../../provider/resources/snapshot/inputs";
import { diffVswitchAttachment } from "../../provider/resources/vswitch-attachment/diff";
import { inputNames as vswitchInputs, type VswitchAttachmentOutputs } from "../../provider/resources/vswitch-attachment/inputs";

const VM = "6f1c2a3b-0000-4000-8000-000000000001";
const VM2 = "6f1c2a3b-0000-4000-8000-000000000002";
const OTHER = "6f1c2a3b-0000-4000-8000-0000000000aa";

/** A resource: its diff (Pulumi's untyped bags), its input names, a state, and one changed value per input. */
interface Case {
  diff(olds: Record<string, unknown>, news: Record<string, unknown>): ResourceDiff;
  inputs: readonly string[];
  state: Record<string, unknown>;
  program: Record<string, unknown>;
  changed: Record<string, unknown>;
}

const cases: Record<string, Case> = {
  FirewallRule: {
    diff: (o, n) => diffFirewallRule(o, n),
    inputs: Object.keys(firewallRuleSchema.shape),
    state: { instanceId: VM, protocol: "tcp", port: "22", action: "accept", sourceIp: "10.0.0.0/8", description: "ssh" },
    program: { instanceId: VM, protocol: "tcp", port: "22", action: "accept", sourceIp: "10.0.0.0/8", description: "ssh" },
    changed: { instanceId: VM2, protocol: "udp", port: "23", sourceIp: "10.0.0.0/9", action: "drop", description: "other", adoptId: "7", timeouts: { update: "1m" } },
  },
  Snapshot: {
    diff: (o, n) => diffSnapshot(o, n),
    inputs: Object.keys(snapshotSchema.shape),
    state: { instanceId: VM, name: "s", description: "d", status: "Ready", declaredName: "s", declaredDescription: "d" },
    program: { instanceId: VM, name: "s", description: "d" },
    changed: { instanceId: VM2, name: "t", description: "e", adoptId: OTHER, timeouts: { create: "1m" } },
  },
  PublicIp: {
    diff: (o, n) => diffPublicIp(o as PublicIpOutputs, n as PublicIpOutputs),
    inputs: publicIpInputs,
    state: { instanceId: VM, publicIpId: OTHER, ipAddress: "203.0.113.10", publicNetworkId: OTHER, rdns: "a.example.com" },
    program: { instanceId: VM, publicNetworkId: OTHER, rdns: "a.example.com" },
    changed: { instanceId: VM2, publicNetworkId: VM2, rdns: "b.example.com", adoptId: OTHER, timeouts: { update: "1m" } },
  },
  VswitchAttachment: {
    diff: (o, n) => diffVswitchAttachment(o as VswitchAttachmentOutputs, n as VswitchAttachmentOutputs),
    inputs: vswitchInputs,
    state: { instanceId: VM, vswitchId: OTHER, vswitchName: "lan" },
    program: { instanceId: VM, vswitchId: OTHER },
    changed: { instanceId: VM2, vswitchId: VM2, adoptId: `${VM}/${OTHER}`, timeouts: { delete: "1m" } },
  },
  BlockStorageAttachment: {
    diff: (o, n) => diffBlockStorageAttachment(o as BlockStorageAttachmentOutputs, n as BlockStorageAttachmentOutputs),
    inputs: blockStorageInputs,
    state: { blockStorageId: "bs-1", instanceId: VM, name: "data" },
    program: { blockStorageId: "bs-1", instanceId: VM },
    changed: { blockStorageId: "bs-2", instanceId: VM2, adoptId: "bs-1", timeouts: { create: "1m" } },
  },
};

describe.each(Object.entries(cases))("%s diff: changedKeys", (_name, c) => {
  it("has a changed value for each input (a new input needs one here)", () => {
    expect(Object.keys(c.changed).sort()).toEqual([...c.inputs].sort());
  });
  it("names nothing when nothing changed", () => {
    expect(c.diff(c.state, c.program)).toMatchObject({ changes: false, changedKeys: [] });
  });
  it.each(c.inputs.map((k) => [k]))("names %s, and only it, when it changed", (key) => {
    const d = c.diff(c.state, { ...c.program, [key]: c.changed[key] });
    expect(d.changes).toBe(true);
    expect(d.changedKeys).toEqual([key]);
    for (const replaced of d.replaces ?? []) expect(d.changedKeys).toContain(replaced);
  });
});
