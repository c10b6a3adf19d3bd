/**
 * PublicIp <-> API mapping. Pure: no I/O.
 *
 * The address is read from the instance detail: `public_ip: {ip_id, ip_address}` (normalized by the client
 * to `null` when the service writes `-`) and `rdns`. The resource id is the address uuid (`ip_id`). An
 * instance that no longer holds that address (taken off or swapped out of band) does not make the resource
 * gone: the address stays reserved in the account (the API cannot release an address that is on no VM), so
 * it is recorded `detached` and assigned back by the next up ({@link detachedOutputs}).
 */
import type { PublicIpInputs, PublicIpOutputs } from "./inputs";

/** The part of the (normalized) instance detail this resource reads. */
export interface PublicIpDetail {
  public_ip: { ip_id: string | null; ip_address: string | null } | null;
  rdns: string | null;
}

/**
 * Reverse DNS as compared and output: lower case, without a trailing dot (the inputs are normalized the
 * same way), so a host that answers `Mail.Example.com.` does not show drift against `mail.example.com`.
 * Null when there is none.
 */
export function normalizedRdns(rdns: string | null | undefined): string | null {
  const value = rdns?.trim().toLowerCase().replace(/\.$/, "") ?? "";
  return value === "" ? null : value;
}

/** The address an instance holds now, or undefined when it has none (or the service names no uuid for it). */
export function currentAddress(detail: PublicIpDetail): { id: string; ipAddress: string } | undefined {
  const ip = detail.public_ip;
  if (!ip || !ip.ip_id) return undefined;
  return { id: ip.ip_id, ipAddress: ip.ip_address ?? "" };
}

/**
 * Outputs of the address `id` on the instance, or undefined when the instance does not hold that address
 * (removed, or swapped for another one out of band): then the resource is gone.
 */
export function publicIpOutputs(id: string, inputs: PublicIpInputs, detail: PublicIpDetail): PublicIpOutputs | undefined {
  const address = currentAddress(detail);
  if (!address || address.id !== id) return undefined;
  const outputs: PublicIpOutputs = { instanceId: inputs.instanceId, publicIpId: address.id, ipAddress: address.ipAddress };
  if (inputs.publicNetworkId !== undefined) outputs.publicNetworkId = inputs.publicNetworkId;
  const rdns = normalizedRdns(detail.rdns);
  if (rdns !== null) outputs.rdns = rdns;
  if (inputs.adoptId !== undefined) outputs.adoptId = inputs.adoptId;
  if (inputs.timeouts !== undefined) outputs.timeouts = inputs.timeouts;
  return outputs;
}

/**
 * The input values `read` needs, from the outputs in state (read only receives those): instanceId,
 * publicNetworkId, adoptId and timeouts are carried verbatim. `rdns` is NOT: the output is the name the
 * address HAS, not the one the user asked for (or whether they asked at all), so it cannot stand in for the
 * input. That is also why read returns no `inputs` for this resource: the engine then keeps the inputs of
 * the last up, and the next diff compares the user's rdns (if any) with the refreshed one, refresh after
 * refresh.
 */
export function settingsFromState(state: Partial<PublicIpOutputs> & { instanceId: string }): PublicIpInputs {
  const inputs: PublicIpInputs = { instanceId: state.instanceId };
  if (state.publicNetworkId !== undefined) inputs.publicNetworkId = state.publicNetworkId;
  if (state.adoptId !== undefined) inputs.adoptId = state.adoptId;
  if (state.timeouts !== undefined) inputs.timeouts = state.timeouts;
  return inputs;
}

/**
 * Outputs of an address the instance no longer holds (taken off or swapped out of band): what the state knew
 * of it, marked `detached`, without rdns (the instance's rdns now belongs to whatever it holds). Recorded
 * rather than reported gone: gone, the address stayed reserved in the account in no state (a leak, billed)
 * and the next up added a second one; detached, the next up's diff shows the change and update assigns this
 * address back.
 */
export function detachedOutputs(id: string, state: Partial<PublicIpOutputs> & { instanceId: string }): PublicIpOutputs {
  return { ...settingsFromState(state), publicIpId: id, ipAddress: state.ipAddress ?? "", detached: true };
}
