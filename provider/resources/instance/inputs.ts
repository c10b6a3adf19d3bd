/**
 * Inputs of the Instance resource: the zod schema `check` validates with, the cross-property rules, and the
 * outputs schema (inputs + computed outputs).
 *
 * Rules the API does not publish (api-spec.md §8 "bounds of fields: not shown") are inferred and kept
 * conservative, each failure saying how to fix it:
 * - hostname: RFC 1123 labels (lowercase letters, digits or hyphens, none starting or ending with a hyphen)
 *   separated by dots, 63 characters in all. The panel shows it as the VM's name and it becomes the guest's
 *   hostname.
 * - username: a Linux user name: starts with a lowercase letter or `_`, then up to 31 lowercase letters,
 *   digits, `_` or `-`.
 * - password: 8 to 72 bytes (bcrypt, Laravel's default hasher, ignores bytes past 72) with at least one
 *   lowercase letter, one uppercase letter and one digit, no whitespace. (The API takes `password` +
 *   `password_confirmation`, Laravel's `confirmed` rule; hosts of this panel reject short or single-class
 *   passwords. We send the same value twice.)
 * - cpu (count), memory (GB), storage (GB): positive integers (create/resize take integers in GB,
 *   real-api-facts.md). Storage >= the template's minimum is checked in `create` (it needs the catalogue,
 *   an API call, which `check` never makes).
 */
import { z } from "zod";
import { checkInputs, isUnknown, type CheckFailure } from "../common/check";
import { timeoutsOf, uuidOf, uuidOrBlankOf, type ResourceDocs } from "../common/fields";
import type * as pulumi from "@pulumi/pulumi";

// RFC 1123 labels, dots allowed, 63 characters in all (the simulator's rule; the spec shows none): a VM named
// like db.internal.example in the panel can be adopted as it is. Lowercase only: DNS names compare without case,
// and a name the host folds would show as drift.
const HOSTNAME_RE = /^(?=.{1,63}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const USERNAME_RE = /^[a-z_][a-z0-9_-]{0,31}$/;

/**
 * Largest sizes a host of this panel accepts (the create and resize validation, simulator
 * `SIZE_LIMITS`): a bigger value passes nothing to the API and is refused by `check` instead.
 */
export const SIZE_LIMITS = { cpu: 64, memory: 256, storage: 4000 } as const;

/** A text where a number is wanted ("2GB", "40"): the message shows the number to write (new-user audit). */
const numberFromText = (input: unknown): number | undefined => {
  const m = typeof input === "string" ? /^\s*(\d+)\s*(?:gb|g|gib)?\s*$/i.exec(input) : null;
  return m ? Number(m[1]) : undefined;
};

const positiveInt = (what: string, unit: string, max: number) =>
  z
    .number({
      error: (issue) => {
        const n = numberFromText(issue.input);
        return n !== undefined
          ? `${what} must be a number${unit}, not the text ${JSON.stringify(issue.input)}: write ${what}: ${n}`
          : `${what} must be a number${unit}`;
      },
    })
    .int({ error: `${what} must be a whole number${unit}, e.g. 2` })
    .positive({ error: `${what} must be at least 1${unit}` })
    .max(max, { error: `${what} must be at most ${max}${unit}: the host accepts 1 to ${max}` });

/** The lookup by name of each catalogue id (README "Functions"), for a name written where the id goes. */
const LOOKUP_BY_NAME: Record<string, (name: string) => string> = {
  locationId: (name) => `getLocationOutput({ name: ${JSON.stringify(name)} }).id (getLocations lists them)`,
  tierId: (name) => `getTierOutput({ name: ${JSON.stringify(name)} }).id (getTiers lists them)`,
  templateId: () => 'getOsTemplateOutput({ name: "Ubuntu", version: "22.04" }).id (getOsTemplates lists them)',
};

const integerId = (what: string) =>
  z
    .number({
      error: (issue) => {
        // An id written as text ("3": what config.get returns) is the number to write, not a name to look up (review: it
        // suggested getLocationOutput({ name: "3" })); a blank text is neither.
        const text = typeof issue.input === "string" ? issue.input.trim() : undefined;
        if (text !== undefined && /^\d+$/.test(text))
          return `${what} must be a number (the integer id from the catalogue), not the text ${JSON.stringify(issue.input)}: write ${what}: ${Number(text)} (from stack config, config.requireNumber gives a number)`;
        return text && LOOKUP_BY_NAME[what]
          ? `${what} must be a number (the integer id from the catalogue), not ${JSON.stringify(issue.input)}: to give a name, use ${what}: vmhost.${LOOKUP_BY_NAME[what](issue.input as string)}`
          : `${what} must be a number (the integer id from the catalogue)`;
      },
    })
    .int({ error: `${what} must be a whole number (the integer id from the catalogue)` })
    .positive({ error: `${what} must be a positive integer id` });

/** Why a password is refused, or undefined when it is acceptable (rules inferred: see the file comment). */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 8) return "password must be at least 8 characters";
  if (Buffer.byteLength(password, "utf8") > 72) return "password must be at most 72 bytes (longer passwords are cut by the server's hasher)";
  if (/\s/.test(password)) return "password must not contain spaces or other whitespace";
  if (!/[a-z]/.test(password) || !/[A-Z]/.test(password) || !/[0-9]/.test(password))
    return "password must mix lowercase letters, uppercase letters and digits, e.g. Blue-Horse-42";
  return undefined;
}

/** What happens to attached things when the VM is deleted. */
export const deleteOptionsSchema = z
  .strictObject(
    {
      removePublicIp: z
        .boolean({ error: "deleteOptions.removePublicIp must be true or false" })
        .default(true)
        .describe("Also release the VM's public address (default true: an address left behind keeps billing)."),
      removeBlockStorage: z
        .boolean({ error: "deleteOptions.removeBlockStorage must be true or false" })
        .default(false)
        .describe("Also delete attached block storage (default false: block storage usually holds data to keep)."),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `deleteOptions only takes removePublicIp and removeBlockStorage (true or false), not ${issue.keys.join(", ")}`
          : issue.code === "invalid_type"
            ? "deleteOptions must be an object such as { removePublicIp: true, removeBlockStorage: false }"
            : undefined,
    },
  )
  .default({ removePublicIp: true, removeBlockStorage: false });

/** Durations the provider waits for an operation before failing (defaults from config). */
export const timeoutsSchema = timeoutsOf({
  create: 'How long create may wait until the VM has settled, e.g. "30m". Default: config vmhost:createTimeout, else 30m.',
  update: 'How long an update may wait, all its in-place steps together, e.g. "30m". Default: config vmhost:updateTimeout, else 30m.',
  delete: 'How long delete may wait until the VM is gone, e.g. "20m". Default: config vmhost:deleteTimeout, else 20m.',
});

const inputShape = {
  adoptId: uuidOf("adoptId", "the uuid of an existing instance (see getInstances)").optional(),
  cloneFrom: uuidOf("cloneFrom", "the uuid of the instance to clone (e.g. other.id)").optional(),
  locationId: integerId("locationId").optional(),
  templateId: integerId("templateId").optional(),
  tierId: integerId("tierId").optional(),
  hostname: z
    .string({ error: "hostname must be a string, e.g. web-1" })
    .regex(HOSTNAME_RE, {
      error:
        "hostname must be 1-63 lowercase letters, digits, hyphens or dots (labels separated by dots, none starting or ending " +
        "with a hyphen), e.g. web-1 or db.internal",
    })
    .optional(),
  username: z
    .string({ error: "username must be a string, e.g. deploy" })
    .regex(USERNAME_RE, {
      error: "username must start with a lowercase letter or _ followed by up to 31 lowercase letters, digits, _ or -, e.g. deploy",
    })
    .optional(),
  password: z
    .string({ error: "password must be a string" })
    .superRefine((v, ctx) => {
      const problem = passwordProblem(v);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  sshKeys: z
    .array(
      z
        .string({ error: "each entry of sshKeys must be a string, e.g. \"ssh-ed25519 AAAA... me@laptop\"" })
        .trim()
        .min(1, { error: "an entry of sshKeys is empty: remove it" })
        .refine((k) => !/[\r\n]/.test(k), { error: "each entry of sshKeys must be one line, e.g. ssh-ed25519 AAAA... me@laptop" }),
      { error: "sshKeys must be a list of strings" },
    )
    .refine((keys) => new Set(keys).size === keys.length, { error: "sshKeys lists the same key twice: remove the duplicate" })
    .optional(),
  backups: z.boolean({ error: "backups must be true or false" }).optional(),
  cpu: positiveInt("cpu", " (CPU count)", SIZE_LIMITS.cpu).optional(),
  memory: positiveInt("memory", " (GB)", SIZE_LIMITS.memory).optional(),
  storage: positiveInt("storage", " (GB)", SIZE_LIMITS.storage).optional(),
  dedicatedCpu: z.boolean({ error: "dedicatedCpu must be true or false" }).optional(),
  publicIp: z.boolean({ error: "publicIp must be true (the VM gets a public address) or false (it has none)" }).optional(),
  publicNetworkId: uuidOf("publicNetworkId", "the uuid of a reserved public address, not the address itself").optional(),
  vswitchId: uuidOrBlankOf("vswitchId", "no private network (see getVswitches)").optional(),
  powerState: z.enum(["running", "stopped"], { error: 'powerState must be "running" or "stopped" (or left unset)' }).optional(),
  deleteOptions: deleteOptionsSchema,
  timeouts: timeoutsSchema.optional(),
};

/** What each input means and what changing it does (schema.json and the generated docs show these). */
const INPUT_DOCS: Record<keyof typeof inputShape, string> = {
  adoptId:
    "Adopt this existing instance (its uuid) instead of creating one (pulumi import does not work for dynamic resources). " +
    "The same up makes the adopted VM as declared (in-place properties that differ are changed, a declared password is set). Only used at create.",
  cloneFrom:
    "Create the VM by cloning this instance (its uuid). Needs hostname, locationId and tierId; the disk (template, user, keys) " +
    "comes from the source. Changing it replaces the VM.",
  locationId:
    "Integer id of the data-centre location (list them with getLocations, or look one up by name: getLocation({ name: \"Jakarta\" })). " +
    "Preview refuses an id the host does not list. Changing it replaces the VM.",
  templateId:
    "Integer id of the OS template (list them with getOsTemplates, with each template's minimum cpu, memory and storage). " +
    "Preview refuses an unknown id and sizes below the template's minimums. Changing it replaces the VM.",
  tierId:
    "Integer id of the price tier (list them with getTiers, with whether each offers dedicated CPUs). Preview refuses an unknown id. " +
    "Changing it changes the tier in place.",
  hostname: "The VM's hostname: 1-63 lowercase letters, digits, hyphens or dots (RFC 1123 labels), e.g. web-1 or db.internal. Changing it renames the VM in place.",
  username: "The admin user created on the VM (a Linux user name), e.g. deploy. Changing it replaces the VM.",
  password:
    "The admin user's password: 8-72 bytes mixing lowercase, uppercase and digits, no spaces. Secret and write-only " +
    "(never read back, so never drift). Changing it sets the password in place.",
  sshKeys: "SSH public keys installed for the admin user (their order does not matter). Changing them replaces the VM.",
  backups: "Include scheduled backups. Changing it replaces the VM.",
  cpu: `Number of CPUs, 1 to ${SIZE_LIMITS.cpu} and at least the template's minimum. Changing it resizes in place.`,
  memory: `Memory in GB, 1 to ${SIZE_LIMITS.memory} and at least the template's minimum. Changing it resizes in place.`,
  storage:
    `Disk size in GB, 1 to ${SIZE_LIMITS.storage} and at least the template's minimum. Growing it resizes in place. Disks cannot shrink: a smaller value than the VM has is refused by preview and up (nothing changed), never a silent new VM; replace deliberately with \`pulumi up --replace <urn>\`.`,
  dedicatedCpu: "Dedicated (not shared) CPUs, where the tier offers them (getTiers: dedicatedCpuAvailable; preview refuses it on a tier without); false (shared) by default for a new VM. Changing it resizes in place.",
  publicIp:
    "true: the VM has a public address (added if missing); false: it has none (removed if present). " +
    "Unset: created without one and not managed here (use a PublicIp resource).",
  publicNetworkId: "Uuid of a reserved public address of the VM's location to use (needs publicIp unset or true). Changing it swaps the address in place.",
  vswitchId:
    'Uuid of the private network (vswitch) to join, of the VM\'s location (getVswitches; preview refuses one of another location), or "" for none. Changing it moves the VM in place. ' +
    "Unset: none at create and not managed here (use a VswitchAttachment).",
  powerState: '"running" or "stopped": the VM is started or stopped to match. Unset: not managed.',
  deleteOptions:
    "What deleting the VM also removes: removePublicIp (default true: an address left behind keeps billing; never a " +
    "reserved address the program pins with publicNetworkId, which stays in the account), " +
    "removeBlockStorage (default false: disks usually hold data to keep). Changing it makes no API call.",
  timeouts:
    'Deadlines of the waits, durations with a unit like "90s", "20m" or "1h30m" (a bare "30" is refused; update: the whole update, all its steps); defaults from config vmhost:createTimeout / ' +
    "updateTimeout / deleteTimeout. Changing it makes no API call.",
};

/** Instance inputs as `check` validates them. Which are required depends on how the VM comes to be. */
export const inputsSchema = z
  .strictObject(
    Object.fromEntries(
      Object.entries(inputShape).map(([k, v]) => [k, v.describe(INPUT_DOCS[k as keyof typeof inputShape])]),
    ) as typeof inputShape,
  )
  .describe(
    "A virtual machine (id = instance uuid), created fresh, cloned (cloneFrom) or adopted (adoptId); create waits until it has " +
      "settled. In-place updates run in a fixed order, each waited for: tier, resize, hostname, password, public address, " +
      "private network, power state. Refresh shows out-of-band changes as drift; an address or network managed by a PublicIp " +
      "or VswitchAttachment is never drift of the Instance.",
  );

/** Validated Instance inputs (defaults filled). */
export type InstanceInputs = z.output<typeof inputsSchema>;
/** What a program may pass (before defaults). */
export type InstanceArgsShape = z.input<typeof inputsSchema>;

/** Every input property name. */
export const inputNames = Object.keys(inputsSchema.shape) as (keyof InstanceInputs)[];

/** Computed outputs, added to the inputs. */
export const computedSchema = z.object({
  status: z.string().describe('The status as the API reports it, e.g. "Running", "Stopped" ("Error" after a failed operation).'),
  ipAddress: z.string().nullable().describe("The public IPv4 address, or null when the VM has none."),
  publicIpId: z.string().nullable().describe("Uuid of the public address, or null."),
  rdns: z.string().nullable().describe("Reverse DNS of the public address, or null."),
  privateNetwork: z.string().nullable().describe("The private network as the API names it (the vswitch name), or null."),
  locationName: z.string().nullable().describe("Name of the location, e.g. Jakarta (null when the host leaves it empty)."),
  tierName: z.string().nullable().describe("Name of the tier, e.g. Standard (null when the host leaves it empty)."),
  os: z.string().nullable().describe("Operating system and version, e.g. Ubuntu 22.04 (null when the host names none)."),
  pricePerHour: z.number().nullable().describe("Price per hour while running (Rupiah; null when the host leaves it empty)."),
  estimatedMonthlyPrice: z.number().nullable().describe("Estimated monthly price (Rupiah; null when the host leaves it empty)."),
  createdAt: z.string().nullable().describe("When the VM was created, ISO 8601 UTC (null when the host leaves it empty)."),
  updatedAt: z.string().nullable().describe("When the VM last changed, ISO 8601 UTC, or null."),
  lastStartedAt: z.string().nullable().describe("When the VM last started, ISO 8601 UTC, or null."),
  lastBackupAt: z.string().nullable().describe("When the last backup was taken, ISO 8601 UTC, or null."),
  reservedPublicIpId: z
    .string()
    .optional()
    .describe(
      "Uuid of the public address this resource took off the VM (publicIp set to false, or swapped for publicNetworkId). " +
        "The API cannot release an unassigned address, so it stays reserved in the account (and may bill): the next " +
        "publicIp: true assigns it back instead of adding another, and deleting the VM (with deleteOptions.removePublicIp) " +
        "releases it. Absent when there is none.",
    ),
  madePublicIpId: z
    .string()
    .nullable()
    .optional()
    .describe(
      "Uuid of the public address the API gave this resource (made with publicIp: true, a clone's address, one added by an " +
        "update, or the address an adopted VM came with), on the VM or kept reserved (reservedPublicIpId); null when it has none. " +
        "Only this address is ever kept to reuse or released with the VM: one you put on the VM outside Pulumi (a reserved " +
        "address of yours swapped in or added in the panel) or pin with publicNetworkId goes back to your account.",
    ),
  usersPublicIpId: z
    .string()
    .optional()
    .describe(
      "Uuid of your reserved address that the program pinned (publicNetworkId) and then stopped managing (neither publicIp " +
        "nor publicNetworkId declared) while the VM still holds it: deleting the VM leaves it in your account. Absent otherwise.",
    ),
});

/**
 * Outputs: the inputs under the same names (read back from the API where the API has them) plus the computed
 * outputs. Inputs that are always read back are present even when the user left them unset (an adopted VM
 * still has a cpu count); `publicIp`, `publicNetworkId`, `vswitchId` and `powerState` are present only when
 * the user manages them, so a standalone PublicIp or VswitchAttachment never makes the Instance drift.
 */
export const outputsSchema = inputsSchema
  .extend({
    locationId: z.number().describe(INPUT_DOCS.locationId),
    templateId: z.number().describe(INPUT_DOCS.templateId),
    tierId: z.number().describe(INPUT_DOCS.tierId),
    hostname: z.string().describe(INPUT_DOCS.hostname),
    username: z.string().describe(INPUT_DOCS.username),
    cpu: z.number().describe(INPUT_DOCS.cpu),
    memory: z.number().describe(INPUT_DOCS.memory),
    storage: z.number().describe(INPUT_DOCS.storage),
    dedicatedCpu: z.boolean().describe(INPUT_DOCS.dedicatedCpu),
    publicNetworkId: z.string().nullable().optional().describe("Uuid of the public address in use (null when none); present when publicNetworkId is declared."),
  })
  .extend(computedSchema.shape);

/** Instance outputs as stored in the state. */
export type InstanceOutputs = z.output<typeof outputsSchema>;

/** Outputs Pulumi must store encrypted. */
export const secretOutputNames = ["password"] as const;

/** How the VM comes to exist. */
export type CreateMode = "create" | "clone" | "adopt";

/** The create mode the inputs ask for. */
export function createMode(inputs: { adoptId?: unknown; cloneFrom?: unknown }): CreateMode {
  if (inputs.adoptId !== undefined) return "adopt";
  if (inputs.cloneFrom !== undefined) return "clone";
  return "create";
}

const REQUIRED: Record<CreateMode, (keyof InstanceInputs)[]> = {
  create: ["locationId", "tierId", "templateId", "hostname", "cpu", "memory", "storage", "username", "password"],
  // cloneInstance takes hostname, location_id, tier_id; the disk (template, user, keys) comes from the source
  clone: ["locationId", "tierId", "hostname"],
  // an adopted VM keeps what it has; declared properties are compared with it at the next diff
  adopt: [],
};

const HINT: Partial<Record<keyof InstanceInputs, string>> = {
  locationId: "locationId is required: the integer id of the location, e.g. 1 (see getLocations)",
  tierId: "tierId is required: the integer id of the price tier, e.g. 2 (see getTiers)",
  templateId: "templateId is required: the integer id of the OS template, e.g. 1 (see getOsTemplates; or use cloneFrom)",
  hostname: "hostname is required, e.g. web-1",
  cpu: "cpu is required: the number of CPUs, e.g. 2",
  memory: "memory is required: GB of memory, e.g. 4",
  storage: "storage is required: GB of disk, e.g. 40",
  username: "username is required: the admin user created on the VM, e.g. deploy",
  password: "password is required: the admin user's password (mark it secret)",
};

/**
 * Rules between properties, run on the raw inputs (values unknown during preview are skipped: they are
 * checked again at `up`).
 */
export function crossPropertyFailures(raw: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const has = (k: string) => raw[k] !== undefined && raw[k] !== null;
  const known = (k: string) => has(k) && !isUnknown(raw[k]);
  const mode = createMode({ adoptId: has("adoptId") ? raw.adoptId : undefined, cloneFrom: has("cloneFrom") ? raw.cloneFrom : undefined });
  for (const k of REQUIRED[mode]) {
    if (!has(k)) {
      const hint = HINT[k] ?? `${k} is required`;
      failures.push({ property: k, reason: mode === "clone" ? `${hint.split(":")[0]!} when cloning (cloneFrom)` : hint });
    }
  }
  if (has("adoptId") && has("cloneFrom"))
    failures.push({ property: "cloneFrom", reason: "cloneFrom cannot be combined with adoptId: adopt an existing VM or clone one, not both" });
  if (mode === "clone") {
    for (const k of ["templateId", "username", "sshKeys", "backups"] as const) {
      if (has(k))
        failures.push({
          property: k,
          reason: `${k} cannot be combined with cloneFrom: a clone copies the source VM's disk (remove ${k}, or remove cloneFrom to install a fresh VM)`,
        });
    }
  }
  if (known("publicNetworkId") && raw.publicIp === false)
    failures.push({
      property: "publicNetworkId",
      reason: "publicNetworkId needs a public address: remove publicIp: false, or remove publicNetworkId",
    });
  return failures;
}

/**
 * `check` for the Instance: unknown property names, schema failures and cross-property failures together,
 * so one run shows every problem, each naming its property.
 */
export function checkInstanceInputs(news: Record<string, unknown>): pulumi.dynamic.CheckResult<InstanceInputs> {
  const raw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(news)) if (k !== "__provider" && v !== undefined) raw[k] = v;
  const result = checkInputs(inputsSchema, raw, "an Instance");
  const failures = result.failures ?? [];
  const failed = new Set(failures.map((f) => f.property));
  const cross = crossPropertyFailures(raw).filter((f) => !failed.has(f.property));
  const all = [...failures, ...cross];
  if (all.length > 0) return { failures: all };
  // A fresh VM gets shared CPUs unless asked otherwise: spelled out, so the program's inputs say what the VM is
  // created with, and the diff (which compares only declared read-back values) sees dedicated CPUs switched on
  // in the panel. (Read hands back no inputs; this default is kept for that reason, and because removing it
  // would change the recorded inputs of existing stacks.)
  if (result.inputs && createMode(result.inputs) === "create" && result.inputs.dedicatedCpu === undefined)
    return { inputs: { ...result.inputs, dedicatedCpu: false } };
  return result;
}

const MODE_HOW: Record<CreateMode, string> = {
  create: "a fresh VM installed from templateId (no cloneFrom, no adoptId)",
  clone: "cloneFrom set: a copy of another VM's disk; templateId, username, sshKeys and backups are refused",
  adopt: "adoptId set: an existing VM taken over and made as declared by the same up (see Import)",
};

/** The "required inputs per mode" table of the reference page, from the same rule `check` applies. */
function requiredInputsSection(): string {
  const rows = (Object.keys(REQUIRED) as CreateMode[]).map(
    (mode) => `| ${mode} | ${MODE_HOW[mode]} | ${REQUIRED[mode].length ? REQUIRED[mode].map((k) => `\`${k}\``).join(", ") : "none"} |`,
  );
  return (
    "## Required inputs by mode\n\n" +
    "No input is required in every mode, so the Inputs table marks none; `check` (and so `pulumi preview`) requires these:\n\n" +
    "| Mode | When | Required inputs |\n|---|---|---|\n" + rows.join("\n")
  );
}

/** The example and adoption sections of the reference page (tools/schema adds them to schema.json). */
export const resourceDocs: ResourceDocs = {
  sections: requiredInputsSection(),
  example: `import * as pulumi from "@pulumi/pulumi";
import * as vmhost from "pulumi-vmhost";

const config = new pulumi.Config();
// Names, not host-specific ids: the lookups fail listing the valid names when one is wrong.
const jakarta = vmhost.getLocationOutput({ name: "Jakarta" });
const standard = vmhost.getTierOutput({ name: "Standard" });
const ubuntu = vmhost.getOsTemplateOutput({ name: "Ubuntu", version: "22.04" });

const web = new vmhost.Instance("web", {
  locationId: jakarta.id,
  tierId: standard.id,
  templateId: ubuntu.id,
  hostname: "web-1",
  cpu: 2,
  memory: 4,
  storage: 40,
  username: "deploy",
  password: config.requireSecret("vmPassword"),
  sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample me@laptop"],
  publicIp: true,
  powerState: "running",
  timeouts: { create: "30m" },
});

export const ipAddress = web.ipAddress;`,
  adoption: `\`pulumi import\` does not work for dynamic resources: adopt an existing VM with \`adoptId\` instead. Find its uuid with
\`getInstances\` (or the panel), declare it and run \`pulumi up\`:

\`\`\`ts
import * as vmhost from "pulumi-vmhost";

const legacy = new vmhost.Instance("legacy", {
  adoptId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab",
  hostname: "legacy-1", // optional: a declared property that differs is changed by the same up
});
\`\`\`

Adopting needs no other input. The \`up\` that adopts the VM also makes it as declared, like Terraform's import blocks:
in-place properties you declare that differ (sizes, tier, hostname, address, network, power) are changed, and a declared
password is set (write-only: whether the VM has it cannot be seen); the \`up\` logs what it changes. Properties you leave out
stay as they are; what would need a new VM (location, template, user) and a disk smaller than the VM's are refused at
preview. Keep \`adoptId\` in the program: without it the Instance is a create again (every create input is required) and
a later replace-forcing change would replace the VM, deleting it.`,
};
