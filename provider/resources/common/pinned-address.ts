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
 * reserved in the account), so that `forWhat` can be given it. Under that VM's lock, on a fresh read.
 */
export async function takeAddressFromReplacedVm(client: VmHostClient, addressId: string, forWhat: string, deadline: Deadline): Promise<void> {
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
    return;
  }
}
