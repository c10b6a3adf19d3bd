/** Private addresses as the instance detail may show them (`private_network`), matched against a vswitch's network. */

/**
 * Whether `private_network` shows the VM's private address (as some hosts may: the spec leaves the text open, and
 * the client's samples hold "10.0.0.5") inside the vswitch's network (`network_ip`, CIDR). Simulator audit: a host
 * showing the address left every VswitchAttachment create waiting until its deadline, and a declared vswitchId
 * drifted forever.
 */
export function privateAddressIn(text: string, networkCidr: string | null | undefined): boolean {
  const address = ipv4(/\b\d{1,3}(?:\.\d{1,3}){3}\b/.exec(text)?.[0]);
  const [base, bitsText] = (networkCidr ?? "").trim().split("/");
  const network = ipv4(base);
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (address === undefined || network === undefined || !Number.isInteger(bits) || bits < 8 || bits > 32) return false;
  const mask = bits === 32 ? 0xffffffff : ~(0xffffffff >>> bits) >>> 0;
  return ((address & mask) >>> 0) === ((network & mask) >>> 0);
}

function ipv4(text: string | undefined): number | undefined {
  const parts = text?.split(".").map(Number);
  if (parts?.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}
