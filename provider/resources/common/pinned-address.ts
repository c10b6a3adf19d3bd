/**
 * A reserved address pinned to a VM that this deployment replaces.
 *
 * Pulumi replaces create-before-delete: the new VM (or the PublicIp replaced with it) is made while the old VM
 * still exists and holds the address. The API refuses to assign an address another VM holds ("already assigned
 * to another instance"), so the replacement of a VM with `publicNetworkId`, or of a PublicIp with
 * `publicNetworkId` on it, failed at every run, two VMs billing (audit). Only an address held by a VM the engine
 * is replacing in this deployment is taken (known from its Diff: common/replacements.ts), never one of a VM that
 * stays; that old VM is deleted at the end of this up.
 */
import type { VmHostClient } from "../../api";
import { progressLog } from "../../context";
import { runInstanceOperation } from "../../wait/instance";
import type { Deadline } from "../../wait/poll";
import { replacementsInProgress } from "./replacements";

/**
 * Takes the reserved address `addressId` off the VM this deployment replaces, if one of them holds it (it stays
 * reserved in the account), so that `forWhat` can be given it. Under that VM's lock, on a fresh read. Answers the
 * VM it was taken from, if any.
 */
export async function takeAddressFromReplacedVm(
  client: VmHostClient, addressId: string, forWhat: string, deadline: Deadline,
): Promise<string | undefined> {
  const wanted = addressId.toLowerCase();
  for (const oldVm of replacementsInProgress.idsUnder("Instance:")) {
    const holds = (d: { public_ip: { ip_id: string | null } | null } | undefined): boolean => d?.public_ip?.ip_id?.toLowerCase() === wanted;
    if (!holds(await client.instances.find(oldVm))) continue;
    progressLog(
      `address ${addressId} is held by instance ${oldVm}, which this up replaces: it comes off that VM first (staying reserved) so that ` +
        `${forWhat} gets it; the old VM is deleted once its replacement stands`,
    );
    await runInstanceOperation(
      client,
      oldVm,
      { what: `address ${addressId} to come off instance ${oldVm} (being replaced)`, deadline, until: (d) => !holds(d), failOnErrorStatus: false },
      async () => {
        if (!holds(await client.instances.find(oldVm))) return;
        await client.network.changePublicIp(oldVm, { publicNetwork: null });
      },
    );
    return oldVm;
  }
  return undefined;
}

/**
 * Best effort, after the create that took `addressId` off `oldVm` failed with nothing recorded: the old VM stays the
 * stack's, so it gets its address back (left off, a plain up and preview would show nothing while the VM had lost
 * its public address; only a refresh would). Never throws: the create's own error is what the user must see, and
 * a failure here is logged with what to run.
 */
export async function putAddressBack(client: VmHostClient, addressId: string, oldVm: string, deadline: Deadline): Promise<void> {
  try {
    await runInstanceOperation(
      client,
      oldVm,
      { what: `address ${addressId} to go back to instance ${oldVm}`, deadline, until: (d) => d.public_ip?.ip_id?.toLowerCase() === addressId.toLowerCase(), failOnErrorStatus: false },
      async () => {
        const fresh = await client.instances.find(oldVm);
        if (!fresh || fresh.public_ip?.ip_id) return; // gone, or it holds an address again: nothing to undo
        await client.network.changePublicIp(oldVm, { publicNetwork: addressId });
      },
    );
    progressLog(`the replacement was not created: address ${addressId} is back on instance ${oldVm}`);
  } catch (e) {
    progressLog(
      `the replacement was not created, and address ${addressId} could not be put back on instance ${oldVm} (${e instanceof Error ? e.message : String(e)}): ` +
        "it is reserved in your account; `pulumi up --refresh` puts it back or finishes the replacement",
    );
  }
}
