/**
 * A VM a replacement once replaced but that outlived it (retainOnDelete: the engine's DeleteStep does nothing for
 * it) is named in the replacement's `replacing` output for good, and every later Diff notes it again. It is no
 * longer the stack's: never a twin a create may stand beside, never a VM whose disk a new attachment takes (audit
 * of the day's changes). And an adoption that is refused does not keep the managing resource's delete from running.
 * Unlike it, the old VM named by the placeholder of a replacement whose create was unconfirmed waits, pending delete,
 * for the end of the next up without errors: a disk declared on the new VM is taken from it (soak stop23c-31).
 */
import "./instance-env";
import { providers } from "../../provider";
import { forgetDeployment } from "../../provider/registry";
import type { InstanceOutputs } from "../../provider/resources/instance/inputs";
import { harnessSuite, up, type FullProvider } from "./attachment-helpers";
import { validCreate } from "./instance-cases";

const instance = providers.Instance as FullProvider;
const attachment = providers.BlockStorageAttachment as FullProvider;
const h = harnessSuite();

it("a VM retained after a rename with a replace is a stranger to later ups: no twin of it, and its disk stays", async () => {
  forgetDeployment();
  const a = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "ret-web" });
  const x = a.id;
  // the next up (a new process): renamed with a replace-forcing change; X is kept (retainOnDelete)
  forgetDeployment();
  const news = (await instance.check(a.inputs, { ...a.inputs, hostname: "ret-web2", templateId: 2 })).inputs;
  expect((await instance.diff(x, a.outs, news)).replaces?.length).toBeGreaterThan(0);
  const replacement = await instance.create(news);
  expect((replacement.outs as Record<string, unknown>).replacing).toBe(x);
  const disk = (await h().state()).blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;
  await h().admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: x }); // the user's VM now, with a disk of theirs
  // a later up: nothing changes for the replacement (its diff notes the stale `replacing`); a new Instance declares
  // X's hostname, and a new attachment declares X's disk on the replacement
  forgetDeployment();
  await instance.diff(replacement.id, replacement.outs, news);
  await expect(up(instance, { ...validCreate, hostname: "ret-web" })).rejects.toThrow(`an instance named ret-web already exists in location 1 (${x})`);
  await expect(up(attachment, { blockStorageId: disk.uuid, instanceId: replacement.id })).rejects.toThrow(`is attached to instance ${x}`);
  const st = await h().state();
  expect(st.instances.filter((i) => i.hostname === "ret-web").map((i) => i.uuid)).toEqual([x]);
  expect(st.blockStorages.find((b) => b.uuid === disk.uuid)?.instanceUuid).toBe(x);
});

it("a VM that outlived its replacement keeps its name to itself when the replacement is renamed away later", async () => {
  forgetDeployment();
  const a = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "ow-a" });
  const x = a.id;
  // the next up: replaced in place (same hostname); X is kept (retainOnDelete)
  forgetDeployment();
  const news = (await instance.check(a.inputs, { ...a.inputs, templateId: 2 })).inputs;
  expect((await instance.diff(x, a.outs, news)).replaces?.length).toBeGreaterThan(0);
  const y = await instance.create(news);
  expect((y.outs as Record<string, unknown>).replacing).toBe(x);
  // a later up: the replacement is renamed in place, and a new Instance declares the name X still holds
  forgetDeployment();
  const renamed = (await instance.check(y.outs, { ...news, hostname: "ow-b" })).inputs;
  expect((await instance.diff(y.id, y.outs, renamed)).replaces ?? []).toEqual([]);
  await instance.update(y.id, y.outs, renamed);
  await expect(up(instance, { ...validCreate, hostname: "ow-a" })).rejects.toThrow(`an instance named ow-a already exists in location 1 (${x})`);
  expect((await h().state()).instances.filter((i) => i.hostname === "ow-a").map((i) => i.uuid)).toEqual([x]);
});

it("an adoption refused (the VM is another resource's) does not keep that resource's delete-before-replace from deleting its old VM", async () => {
  forgetDeployment();
  const m = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "rd-m" });
  // the next up, in the engine's order: Check of R (adoptId: M's VM), Check and Diff of M (a replace, delete first),
  // the delete of M's old VM, M's replacement, R's create
  forgetDeployment();
  const r = (await instance.check({}, { ...validCreate, hostname: "rd-r", adoptId: m.id })).inputs;
  const news = (await instance.check(m.inputs, { ...m.inputs, templateId: 2 })).inputs;
  expect((await instance.diff(m.id, m.outs, news)).replaces?.length).toBeGreaterThan(0);
  await instance.delete(m.id, m.outs);
  const replacement = await instance.create(news);
  await expect(instance.create(r)).rejects.toThrow(`adoptId: Instance ${m.id} belongs to another resource of this stack`);
  // audit: the delete was skipped as an adopted VM's, and the old VM stayed beside its replacement in no state
  const st = await h().state();
  expect(st.instances.filter((i) => i.hostname === "rd-m").map((i) => i.uuid)).toEqual([replacement.id]);
});

it("a disk on a VM that another Instance's replacement replaces in this up moves to the instance its attachment declares", async () => {
  forgetDeployment();
  const a = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "swapd-a" });
  const b = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "swapd-b" });
  const disk = (await h().state()).blockStorages.find((d) => d.locationId === 1 && d.instanceUuid === null)!;
  await h().admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: a.id }); // a's disk (its attachment's, in the state)
  // the next up: a replaced (templateId); the attachment declares the disk on b now (two Instances swapping disks)
  forgetDeployment();
  const news = (await instance.check(a.inputs, { ...a.inputs, templateId: 2 })).inputs;
  expect((await instance.diff(a.id, a.outs, news)).replaces?.length).toBeGreaterThan(0);
  const moved = await up(attachment, { blockStorageId: disk.uuid, instanceId: b.id });
  expect(moved.id).toBe(disk.uuid);
  expect((await h().state()).blockStorages.find((d) => d.uuid === disk.uuid)?.instanceUuid).toBe(b.id);
});

it("a disk on the old VM of a replacement whose create was unconfirmed (pending delete) moves to the new VM in the up that replaces the placeholder (soak stop23c-31)", async () => {
  forgetDeployment();
  const a = await up<InstanceOutputs>(instance, { ...validCreate, hostname: "ph-web" });
  const x = a.id;
  const disk = (await h().state()).blockStorages.find((b) => b.locationId === 1 && b.instanceUuid === null)!;
  await h().admin("PATCH", `/block-storages/${disk.uuid}`, { instanceId: x }); // attached by the stack's attachment
  // An up replaced the VM (templateId) and the replacement's create was answered without its id: recorded as a
  // placeholder naming X as the VM it replaces; that up failed, so X waits, pending delete, for an up without errors.
  // The next up, in the engine's order: Diff of the placeholder (delete-before-replace), the attachment dropped with
  // it (deletedWith: no Delete call), the replacement's create, the attachment's create on the new VM.
  forgetDeployment();
  const news = (await instance.check(a.inputs, { ...a.inputs, templateId: 2 })).inputs;
  const placeholder = "unconfirmed-6b4e28ba-2fa1-41d2-883f-0016d3cca427";
  expect((await instance.diff(placeholder, { ...news, replacing: x }, news)).deleteBeforeReplace).toBe(true);
  const replacement = await instance.create(news);
  await up(attachment, { blockStorageId: disk.uuid, instanceId: replacement.id });
  // before: refused at every up ("attached to instance X ... Detach it there first"), the disk left on X
  expect((await h().state()).blockStorages.find((b) => b.uuid === disk.uuid)?.instanceUuid).toBe(replacement.id);
});
