/**
 * `pulumi up --target` (and `--exclude`) through the local engine: the engine neither checks nor diffs the resources
 * it leaves out (pulumi/pulumi pkg/resource/deploy/step_generator.go, continueStepsFromImport), so the provider's
 * per-deployment notes of what the stack declares miss them. What the provider says where that matters must not read
 * as "nobody's": its advice to adopt, or to leave a twin, names the case (checked against the simulator's state).
 */
import { show, simState, specSuite, vmArgs, type Res } from "./spec-stack";

jest.setTimeout(300_000);
const suite = specSuite();

test("objects another resource of the stack holds, unseen under --target: the refusals, warnings and take-over logs name --target", async () => {
  const disk = (await simState(suite.sim)).blockStorages.find((b) => b.name === "jkt-archive-20")!.uuid;
  const rule = (port: number): Record<string, unknown> => ({ instanceId: "$id:vm", protocol: "tcp", port, action: "accept" });
  const base = (fw1Port = 80): Res[] => [
    { type: "Instance", name: "vm", args: vmArgs("targeted-runs") },
    { type: "FirewallRule", name: "fw1", args: rule(fw1Port) },
    { type: "FirewallRule", name: "fw2", args: rule(81) },
    { type: "Snapshot", name: "s1", args: { instanceId: "$id:vm", name: "nightly" } },
    { type: "BlockStorageAttachment", name: "a", args: { instanceId: "$id:vm", blockStorageId: disk } },
  ];
  const s = await suite.newStack();
  const up = await s.run("up", base());
  expect(up.ok ? "" : show(up)).toBe("");
  const vm = s.res("vm")!.id!;
  const urn = (of: string, name: string): string => s.res(of)!.urn.replace(/::[^:]+$/, `::${name}`);
  const caveat = "with `--target` or `--exclude` the provider cannot tell which those are";

  // A second rule like fw2, and a second snapshot named like s1, targeted: fw2 and s1 are not seen, so the
  // refusal cannot say they are the stack's; its advice to adopt says never to adopt one the stack declares.
  for (const [extra, name] of [
    [{ type: "FirewallRule", name: "fw3", args: rule(81) }, "fw3"],
    [{ type: "Snapshot", name: "s2", args: { instanceId: "$id:vm", name: "nightly" } }, "s2"],
  ] as const) {
    const refused = await s.run("up", [...base(), extra], { targets: [urn(name === "fw3" ? "fw2" : "s1", name)] });
    expect(refused.ok).toBe(false);
    expect(refused.errors.join("\n")).toContain(caveat);
  }

  // fw1 updated into fw2's twin, targeted: not refused (fw2 unseen), the warning says what to do when it is the stack's.
  const twin = await s.run("up", base(81), { targets: [s.res("fw1")!.urn] });
  expect(twin.ok ? "" : show(twin)).toBe("");
  expect(twin.stdout).toContain("If another FirewallRule of this stack declares it (`--target` and `--exclude` keep the resources they leave out");
  const rules = (await simState(suite.sim)).firewallRules.filter((r) => r.instanceUuid === vm && r.destinationPort === "81");
  expect(rules).toHaveLength(2); // the known limit: the firewall holds the rule twice

  // A second attachment of a's disk, targeted: taken over in place; the log says how to undo that without detaching.
  const taken = await s.run("up", [...base(81), { type: "BlockStorageAttachment", name: "b", args: { instanceId: "$id:vm", blockStorageId: disk } }], {
    targets: [urn("a", "b")],
  });
  expect(taken.ok ? "" : show(taken)).toBe("");
  expect(taken.stdout).toContain("If another resource of this stack declares it (`--target` and `--exclude` keep the resources they");
  // Removed by an up without --target, as the log says: a holds the attachment, and b's delete leaves it.
  const removed = await s.run("up", base(81));
  expect(removed.ok ? "" : show(removed)).toBe("");
  expect((await simState(suite.sim)).blockStorages.find((b) => b.uuid === disk)?.instanceUuid).toBe(vm);
});
