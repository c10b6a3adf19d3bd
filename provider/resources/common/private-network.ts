/**
 * Private networks as far as every resource goes: the address the instance detail may show (`private_network`),
 * matched against a vswitch's network, and leaving a network.
 */
import { ValidationError, type VmHostClient, type VmUuidRef } from "../../api";
import { ProviderError } from "./errors";

/**
 * Whether `private_network` shows the VM's private address (as some hosts may: the spec leaves the text open, and
 * the client's samples hold "10.0.0.5") inside the vswitch's network (`network_ip`, CIDR). Simulator audit: a host
 * showing the address left every VswitchAttachment create waiting until its deadline, and a declared vswitchId
 * drifted forever. Only a text that IS a host address (maybe with its prefix length) counts: not an address found in
 * other text ("db (10.10.3.0/24)" names a network), nor the network's own or broadcast address (review: another
 * network of the same range was taken for ours). Callers also require that one network only holds it.
 */
export function privateAddressIn(text: string, networkCidr: string | null | undefined): boolean {
  const shown = /^(\d{1,3}(?:\.\d{1,3}){3})(?:\/\d{1,2})?$/.exec(text.trim());
  const address = ipv4(shown?.[1]);
  const [base, bitsText] = (networkCidr ?? "").trim().split("/");
  const network = ipv4(base);
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (address === undefined || network === undefined || !Number.isInteger(bits) || bits < 8 || bits > 32) return false;
  const mask = bits === 32 ? 0xffffffff : ~(0xffffffff >>> bits) >>> 0;
  if (((address & mask) >>> 0) !== ((network & mask) >>> 0)) return false;
  const host = (address & ~mask) >>> 0;
  return bits >= 31 || (host !== 0 && host !== (~mask >>> 0));
}

/**
 * The one network among `candidates` (the networks that may be in the VM's location) that the VM's private address
 * `text` must be on when networks do not say their range (`network_ip` null: a host variant). A VM shows an address
 * only while on a network, so when every other candidate says a range without that address, the one whose range is
 * unknown is it (simulator audit: such a join was never confirmed and waited until its deadline, advising a longer
 * one). Undefined unless that singles one out: two ranges unknown, or a known range holding the address (the callers'
 * own rule decides that case).
 */
export function onlyNetworkThatCanHold<T>(text: string, candidates: readonly T[], networkOf: (v: T) => string | null | undefined): T | undefined {
  const shown = /^(\d{1,3}(?:\.\d{1,3}){3})(?:\/\d{1,2})?$/.exec(text.trim());
  if (ipv4(shown?.[1]) === undefined) return undefined;
  const unknown = (v: T) => !networkOf(v)?.trim();
  const possible = candidates.filter((v) => unknown(v) || privateAddressIn(text, networkOf(v)));
  return possible.length === 1 && unknown(possible[0]!) ? possible[0] : undefined;
}

function ipv4(text: string | undefined): number | undefined {
  const parts = text?.split(".").map(Number);
  if (parts?.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

/**
 * Takes the instance off its private network: updatePrivateNetwork with a blank `vswitch`, which real-api-facts.md
 * gives as the way to leave (marked "assumed"; api-spec.md marks `vswitch` required). A host that refuses the blank
 * value (a 422) has no API call to leave a network: said, naming the panel as the way out (simulator audit: the raw
 * 422 "The vswitch field is required." would fail every destroy of a VswitchAttachment without a word of why).
 */
export async function leavePrivateNetwork(client: VmHostClient, instanceId: string): Promise<VmUuidRef | null> {
  try {
    return await client.network.updatePrivateNetwork(instanceId, { vswitch: null });
  } catch (error) {
    // (a 422 about another field is not this: passed on as the host said it)
    if (!(error instanceof ValidationError) || !("vswitch" in error.fieldErrors)) throw error;
    throw new ProviderError(
      `the host refused to take instance ${instanceId} off its private network (${error.apiMessage ?? error.message}): on this host the API ` +
        "has no call to leave a private network. Take the instance off the network in the host's panel, then run pulumi refresh " +
        "and the command again (the state then shows it off the network).",
      { cause: error },
    );
  }
}
