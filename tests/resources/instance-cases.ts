/**
 * Shared fixtures of the Instance tests: a valid program and the bad inputs `check` must refuse, each with
 * the property its failure must name. Used by the pure test beside inputs.ts and by the provider test
 * (which also asserts that no API call was made).
 */
export const validCreate = {
  locationId: 1,
  tierId: 2,
  templateId: 1,
  hostname: "web-1",
  cpu: 2,
  memory: 4,
  storage: 40,
  username: "deploy",
  password: "Blue-Horse-42",
};

const UUID = "6f1c0a2e-1111-4222-8333-444455556666";

/** [description, inputs, property the failure must name]. */
export const badInputs: [string, Record<string, unknown>, string][] = [
  ["hostname with uppercase", { ...validCreate, hostname: "Web-1" }, "hostname"],
  ["hostname with underscore", { ...validCreate, hostname: "web_1" }, "hostname"],
  ["hostname starting with a hyphen", { ...validCreate, hostname: "-web" }, "hostname"],
  ["hostname longer than 63", { ...validCreate, hostname: "a".repeat(64) }, "hostname"],
  ["hostname empty", { ...validCreate, hostname: "" }, "hostname"],
  ["hostname with an empty label", { ...validCreate, hostname: "db..internal" }, "hostname"],
  ["hostname ending with a dot", { ...validCreate, hostname: "db.internal." }, "hostname"],
  ["hostname label ending with a hyphen", { ...validCreate, hostname: "db-.internal" }, "hostname"],
  ["hostname missing", { ...validCreate, hostname: undefined }, "hostname"],
  ["password too short", { ...validCreate, password: "Ab1" }, "password"],
  ["password without digits", { ...validCreate, password: "BlueHorseRuns" }, "password"],
  ["password without uppercase", { ...validCreate, password: "blue-horse-42" }, "password"],
  ["password with a space", { ...validCreate, password: "Blue Horse 42" }, "password"],
  ["password missing on create", { ...validCreate, password: undefined }, "password"],
  ["cpu zero", { ...validCreate, cpu: 0 }, "cpu"],
  // above what the host accepts (create/resize validation: 64 CPUs, 256 GB memory, 4000 GB storage)
  ["cpu above the host's 64", { ...validCreate, cpu: 65 }, "cpu"],
  ["memory above the host's 256 GB", { ...validCreate, memory: 300 }, "memory"],
  ["storage above the host's 4000 GB", { ...validCreate, storage: 5000 }, "storage"],
  ["deleteOptions as text", { ...validCreate, deleteOptions: "keep" }, "deleteOptions"],
  ["timeouts as text", { ...validCreate, timeouts: "10m" }, "timeouts"],
  ["cpu fractional", { ...validCreate, cpu: 1.5 }, "cpu"],
  ["memory negative", { ...validCreate, memory: -4 }, "memory"],
  ["memory as text", { ...validCreate, memory: "4GB" }, "memory"],
  ["storage fractional", { ...validCreate, storage: 40.5 }, "storage"],
  ["storage missing", { ...validCreate, storage: undefined }, "storage"],
  ["locationId as text", { ...validCreate, locationId: "jakarta" }, "locationId"],
  ["tierId zero", { ...validCreate, tierId: 0 }, "tierId"],
  ["templateId missing without cloneFrom", { ...validCreate, templateId: undefined }, "templateId"],
  ["username starting with a digit", { ...validCreate, username: "1admin" }, "username"],
  ["sshKeys with an empty key", { ...validCreate, sshKeys: ["ssh-ed25519 AAAA me", ""] }, "sshKeys[1]"],
  ["sshKeys duplicate", { ...validCreate, sshKeys: ["ssh-ed25519 AAAA me", "ssh-ed25519 AAAA me"] }, "sshKeys"],
  ["sshKeys not a list", { ...validCreate, sshKeys: "ssh-ed25519 AAAA me" }, "sshKeys"],
  ["cloneFrom with templateId", { ...validCreate, cloneFrom: UUID }, "templateId"],
  ["cloneFrom with username", { ...validCreate, templateId: undefined, cloneFrom: UUID }, "username"],
  ["cloneFrom not a uuid", { hostname: "web-2", locationId: 1, tierId: 2, cloneFrom: "web-1" }, "cloneFrom"],
  ["cloneFrom with adoptId", { adoptId: UUID, cloneFrom: UUID }, "cloneFrom"],
  ["adoptId not a uuid", { adoptId: "vm-17" }, "adoptId"],
  ["publicNetworkId with publicIp false", { ...validCreate, publicIp: false, publicNetworkId: UUID }, "publicNetworkId"],
  ["publicNetworkId not a uuid", { ...validCreate, publicNetworkId: "103.150.10.11" }, "publicNetworkId"],
  ["publicIp as text", { ...validCreate, publicIp: "yes" }, "publicIp"],
  ["vswitchId not a uuid", { ...validCreate, vswitchId: "jkt-private-1" }, "vswitchId"],
  ["powerState not in the enum", { ...validCreate, powerState: "paused" }, "powerState"],
  ["powerState capitalised", { ...validCreate, powerState: "Running" }, "powerState"],
  ["dedicatedCpu as text", { ...validCreate, dedicatedCpu: "true" }, "dedicatedCpu"],
  ["backups as number", { ...validCreate, backups: 1 }, "backups"],
  ["timeouts.create not a duration", { ...validCreate, timeouts: { create: "ten minutes" } }, "timeouts.create"],
  ["timeouts with a typo'd key", { ...validCreate, timeouts: { craete: "10m" } }, "timeouts.craete"],
  ["timeouts.delete zero", { ...validCreate, timeouts: { delete: "0s" } }, "timeouts.delete"],
  ["deleteOptions.removePublicIp as text", { ...validCreate, deleteOptions: { removePublicIp: "no" } }, "deleteOptions.removePublicIp"],
  ["deleteOptions with an unknown key", { ...validCreate, deleteOptions: { removeDisks: true } }, "deleteOptions.removeDisks"],
  ["a typo'd property", { ...validCreate, hostName: "web-1" }, "hostName"],
];
