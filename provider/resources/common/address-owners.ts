/**
 * One owner per public address: an Instance that declares `publicIp` or `publicNetworkId` manages its VM's address,
 * and a PublicIp on that VM would be a second owner.
 *
 * A PublicIp adds an address only to a VM without one, so on a VM whose Instance declares `publicIp: true` its
 * create is refused ("already has a public address"), but that refusal offered `adoptId`, and an adoption of the
 * Instance's own address went through (audit): two resources then held one address, and removing the PublicIp
 * took the address off the VM (drift for the Instance, which puts it back, and so on). A pinned PublicIp would swap
 * the Instance's address, and one on a VM declared `publicIp: false` would add what the Instance removes.
 *
 * So the Instance notes, per deployment (one provider process serves one: the dynamic-provider host), whether each
 * of its VMs is declared with an address to manage: at Diff (the engine diffs every resource of the state the
 * program still declares, with the program's inputs), create and update, always from the program's inputs, never
 * the state's (an up that drops `publicIp` from the Instance and adopts the address with a PublicIp is the way to
 * hand it over: the Instance's update runs first, the PublicIp waiting for `instance.id`). A PublicIp on a VM noted
 * so is refused: at check for a new PublicIp, so preview shows it (best effort: the Instance may be diffed later,
 * when the PublicIp names the VM by a literal id), and at create, where an adoption has first waited for the rest
 * of the deployment (common/adoptions.ts), so the Instance's Diff is known then. Not known: an Instance of another
 * stack, or one `--target` leaves out.
 */
import type * as pulumi from "@pulumi/pulumi";
import { isUnknown, withoutPropertyPrefix } from "./check";
import { notingCreatedId, ProviderError } from "./errors";
import { refreshDiffComes } from "./refresh-diffs";

/** How an Instance of this stack declares a VM's address: its hostname (when known), the declaring field, its values. */
export interface AddressDeclaration {
  hostname?: string;
  field: string;
  /** The declared `publicIp`, when known (not an unknown preview value). */
  publicIp?: boolean;
  /** The declared `publicNetworkId`, when known. */
  publicNetworkId?: string;
}

/** VM id (lower case) -> how its Instance declares its address, for VMs whose Instance manages the address. */
const managedByInstance = new Map<string, AddressDeclaration>();

/** Forgets what was noted (see forgetDeployment in provider/registry.ts). */
export function forgetAddressOwners(): void {
  managedByInstance.clear();
}

/** The declaring field as the program wrote it (`publicIp: true`, `publicNetworkId: "<uuid>"`), undefined when none. */
function declaringField(inputs: Record<string, unknown>): string | undefined {
  const show = (name: string): string | undefined => {
    const value = inputs[name];
    if (value === undefined || value === null) return undefined;
    return isUnknown(value) ? name : `${name}: ${JSON.stringify(value)}`;
  };
  return show("publicNetworkId") ?? show("publicIp");
}

/** Notes, from the program's inputs of the Instance of VM `vmId`, whether that Instance manages the VM's address. */
export function noteInstanceAddress(vmId: string | undefined, inputs: unknown): void {
  if (!vmId) return;
  const bag = (inputs ?? {}) as Record<string, unknown>;
  const field = declaringField(bag);
  if (field === undefined) {
    managedByInstance.delete(vmId.toLowerCase());
    return;
  }
  const hostname = typeof bag.hostname === "string" && !isUnknown(bag.hostname) ? bag.hostname : undefined;
  const publicIp = typeof bag.publicIp === "boolean" ? bag.publicIp : undefined;
  const publicNetworkId = typeof bag.publicNetworkId === "string" && !isUnknown(bag.publicNetworkId) ? bag.publicNetworkId : undefined;
  managedByInstance.set(vmId.toLowerCase(), { hostname, field, publicIp, publicNetworkId });
}

/** The Instance of VM `vmId` as a message names it: by hostname when known. */
function instanceNamed(owner: AddressDeclaration, vmId: string): string {
  return owner.hostname ? `the Instance "${owner.hostname}" (${vmId})` : `the Instance of VM ${vmId}`;
}

/** How the Instance of VM `vmId` declares the VM's address in this deployment, when it manages it. */
export function instanceAddressDeclaration(vmId: string): AddressDeclaration | undefined {
  return managedByInstance.get(vmId.toLowerCase());
}

/** The VM (other than `exceptVm`) whose Instance pins `address` (`publicNetworkId`) in this deployment, if any. */
export function vmPinningAddress(address: string, exceptVm: string): string | undefined {
  const wanted = address.toLowerCase();
  for (const [vm, declared] of managedByInstance)
    if (vm !== exceptVm.toLowerCase() && declared.publicNetworkId?.toLowerCase() === wanted) return vm;
  return undefined;
}

/**
 * The refusal for a PublicIp already in the stack (its Diff) on VM `instanceId` when the VM's Instance now declares its
 * address too, else undefined. Refused at the PublicIp's Diff, which follows the Instance's (the PublicIp waits for
 * `instance.id`), so the preview `pulumi up` runs first fails before any change (audit: an Instance that started
 * declaring `publicIp: false` or `publicNetworkId` beside an existing PublicIp went through; each up then undid the
 * other resource, and the PublicIp's address was left reserved in no state).
 */
export function existingAddressOwnerConflict(instanceId: unknown): string | undefined {
  if (typeof instanceId !== "string" || isUnknown(instanceId)) return undefined;
  const owner = managedByInstance.get(instanceId.toLowerCase());
  if (!owner) return undefined;
  const instance = instanceNamed(owner, instanceId);
  return (
    `instanceId: ${instance} now declares ${owner.field}, and this PublicIp manages that VM's address: an address has one ` +
    "owner (each would undo the other's changes). Either remove " + `${owner.field.split(":")[0]} from the Instance (this PublicIp ` +
    "keeps the address), or remove this PublicIp from the program and declare the address on the Instance (`publicIp: true` " +
    "keeps the address on the VM, as the Instance's from then on)."
  );
}

/**
 * The refusal for a PublicIp on VM `instanceId` when an Instance of this stack manages that VM's address (noted in
 * this deployment), else undefined. Names the Instance, its field, and both ways out.
 */
export function addressOwnerConflict(instanceId: unknown, adoptId: unknown): string | undefined {
  if (typeof instanceId !== "string" || isUnknown(instanceId)) return undefined;
  const owner = managedByInstance.get(instanceId.toLowerCase());
  if (!owner) return undefined;
  const instance = instanceNamed(owner, instanceId);
  const what = typeof adoptId === "string" ? `adoptId: this PublicIp would adopt the address that ${instance} manages` : `instanceId: ${instance} manages its public address`;
  return (
    `${what}: that Instance of this stack declares ${owner.field}, and an address has one owner (two would undo each ` +
    "other's changes, and removing the PublicIp would take the address off the VM). Nothing was changed. Manage the address on " +
    `the Instance and remove this PublicIp; or, to manage it here, remove ${owner.field.split(":")[0]} from the Instance (the ` +
    "address stays on the VM) and give this PublicIp adoptId: the VM's address uuid (getInstance: publicIp.ipId)."
  );
}

/** Wraps the Instance's provider: diff, create and update note how the program declares each VM's address. */
export function withInstanceAddressNoted<P extends pulumi.dynamic.ResourceProvider>(provider: P): P {
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    create: (inputs) => notingCreatedId(() => provider.create(inputs), (id) => noteInstanceAddress(id, inputs)),
  };
  const diff = provider.diff?.bind(provider);
  if (diff)
    wrapped.diff = async (id, olds, news) => {
      // (not a refresh's Diff, whose "news" are the state's inputs: `up --refresh` refreshes in the same deployment, so
      // the state's declaration stood as the program's until the Instance's own Diff; audit: the hand-over of the
      // address to a PublicIp was refused at preview --refresh, saying to remove publicIp, which the program had done)
      if (!refreshDiffComes(id)) noteInstanceAddress(id, news);
      return diff(id, olds, news);
    };
  const update = provider.update?.bind(provider);
  if (update)
    wrapped.update = async (id, olds, news) => {
      noteInstanceAddress(id, news);
      return update(id, olds, news);
    };
  return wrapped as P;
}

/**
 * Wraps the PublicIp's provider: a new PublicIp (check without olds) on a VM whose Instance manages its address fails
 * its check on the field that puts it there; every create on such a VM is refused before any API call, and so is the
 * Diff of one already in the stack (existingAddressOwnerConflict).
 */
export function withAddressOwnerRespected<P extends pulumi.dynamic.ResourceProvider>(provider: P): P {
  const wrapped: pulumi.dynamic.ResourceProvider = {
    ...provider,
    create: async (inputs) => {
      const conflict = addressOwnerConflict(inputs?.instanceId, inputs?.adoptId);
      if (conflict) throw new ProviderError(conflict);
      return provider.create(inputs);
    },
  };
  const diff = provider.diff?.bind(provider);
  if (diff)
    wrapped.diff = async (id, olds, news) => {
      const conflict = existingAddressOwnerConflict(news?.instanceId);
      if (conflict) throw new ProviderError(conflict);
      return diff(id, olds, news);
    };
  const check = provider.check?.bind(provider);
  if (check)
    wrapped.check = async (olds, news) => {
      const result = await check(olds, news);
      // (an existing PublicIp's adoption happened in an earlier up: its create is what this guards)
      if (olds && Object.keys(olds).length > 0) return result;
      const inputs = (result.inputs ?? {}) as Record<string, unknown>;
      const conflict = result.inputs ? addressOwnerConflict(inputs.instanceId, inputs.adoptId) : undefined;
      if (!conflict) return result;
      const property = typeof inputs.adoptId === "string" ? "adoptId" : "instanceId";
      return { failures: [...(result.failures ?? []), withoutPropertyPrefix({ property, reason: conflict })] };
    };
  return wrapped as P;
}
