/**
 * The schemas of every SDK function: arguments (validated before any API call) and results (the
 * normalized, camelCase shape each function returns, validated on the way out). `tools/schema` turns
 * them into the `functions` section of schema.json and the docs; the functions in `./index.ts` use them,
 * so the documented shape is the returned shape.
 */
import { z } from "zod";
import { uuidOf } from "../../../provider/resources/common/fields";

// the same uuid rule as every resource input (case-insensitive, sent lower-case)
const uuidArg = (what: string, example: string) => uuidOf(what, `e.g. ${example}`);
const instanceIdArg = uuidArg("instanceId", "instance.id").describe("The instance's uuid (e.g. `instance.id` of a vmhost.Instance).");
const positiveInt = (what: string, example: string) =>
  z
    .number({
      error: (issue) =>
        issue.input === undefined
          ? `${what} is required: an integer id, e.g. ${example}`
          : `${what} must be an integer id (a number, not text), e.g. ${example}, got ${JSON.stringify(issue.input)}`,
    })
    .int(`${what} must be an integer, e.g. ${example}`)
    .positive(`${what} must be positive`);
const locationIdArg = positiveInt("locationId", "1").describe("The location's integer id.");
const tierIdArg = positiveInt("tierId", "2").describe("The tier's integer id.");
const isoDate = (what: string) =>
  z.string().regex(/^\d{4}-\d{2}-\d{2}$/, `${what} must be a date YYYY-MM-DD, e.g. 2024-08-26`);

const n = (description: string) => z.number().describe(description);
const nn = (description: string) => z.number().nullable().describe(description);
const s = (description: string) => z.string().describe(description);
const sn = (description: string) => z.string().nullable().describe(description);
const when = (description: string) => z.string().nullable().describe(`${description}, ISO 8601 UTC (null when the API gives none).`);

// ---------------------------------------------------------------------------------------------- shapes

const attachedStorageSchema = z
  .object({ id: s("Block storage uuid."), name: s("Block storage name."), size: n("Size in GB.") })
  .describe("A block storage included in a snapshot or backup.").meta({ title: "AttachedStorage" });

const sizeTemplateSchema = z
  .object({
    id: n("Template id."),
    title: s("Template name as the panel shows it."),
    totalCpu: n("vCPUs."),
    totalRam: n("Memory in GB."),
    totalDisk: n("Storage in GB."),
    createdAt: when("Created"),
    updatedAt: when("Last updated"),
  })
  .describe("An instance size template (a preset of CPU, memory and storage).").meta({ title: "SizeTemplate" });

const instanceSummarySchema = z
  .object({
    uuid: s("Instance uuid."),
    hostname: s("Hostname."),
    ipAddress: sn("Public IPv4 address, null when it has none."),
    cpu: n("vCPUs."),
    memory: n("Memory in GB."),
    storage: n("Storage in GB."),
    status: s('Status as the API reports it, e.g. "Running", "Stopped".'),
    os: z.object({ name: s("OS name."), image: sn("OS image name.") }).nullable().describe("Operating system (null when the host does not list it).").meta({ title: "InstanceSummaryOs" }),
    location: s("Location name."),
    tier: s("Tier name."),
    pricePerHour: n("Price per hour."),
    estimatedMonthlyCost: n("Estimated monthly cost (price per hour x 720)."),
    cost: nn("Cost so far this period."),
    operationFlag: n("Non-zero while an operation runs on the instance."),
    createdAt: when("Created"),
  })
  .describe("One instance of the instance list.").meta({ title: "InstanceSummary" });

const instanceDetailSchema = z
  .object({
    uuid: s("Instance uuid."),
    hostname: s("Hostname."),
    username: s("Admin user name."),
    cpu: n("vCPUs."),
    isCpuDedicated: z.boolean().describe("True when the vCPUs are dedicated."),
    memory: n("Memory in GB."),
    storage: n("Storage in GB."),
    status: s('Status as the API reports it, e.g. "Running", "Stopped".'),
    osName: s("Operating system name."),
    publicIp: z
      .object({ ipId: sn("Address uuid."), ipAddress: sn("IPv4 address.") })
      .nullable()
      .describe("The public address, null when the instance has none.").meta({ title: "InstanceDetailPublicIp" }),
    rdns: sn("Reverse DNS of the public address, null when none."),
    privateNetwork: sn("The private network (vswitch) it is attached to, null when none."),
    locationId: n("Location id."),
    location: s("Location name."),
    tierId: n("Tier id."),
    tier: s("Tier name."),
    os: z
      .object({
        templateId: n("OS template id."),
        version: s("OS version."),
        osId: n("OS id."),
        name: s("OS name."),
        image: sn("Image name."),
        minCpu: n("Minimum vCPUs of the template."),
        minMemory: n("Minimum memory of the template."),
        minStorage: n("Minimum storage of the template."),
      })
      .describe("The OS template.").meta({ title: "InstanceDetailOs" }),
    pricePerHour: n("Price per hour."),
    estimatedMonthlyPrice: n("Estimated monthly price."),
    cost: nn("Cost so far this period."),
    operationFlag: n("Non-zero while an operation runs on the instance."),
    createdAt: when("Created"),
    updatedAt: when("Last updated"),
    lastStartedAt: when("Last started"),
    lastBackupAt: when("Last backed up"),
  })
  .describe("An instance's details.");

const gatewaySchema = z
  .object({ uuid: sn("Gateway instance uuid."), hostname: sn("Gateway hostname."), privateIp: sn("Gateway private address.") })
  .describe("The network's gateway; every field null when it has none.").meta({ title: "VswitchGateway" });
const locationSchema = z.object({ id: nn("Location id (null where the endpoint only names it)."), name: s("Location name.") }).describe("A location.").meta({ title: "Location" });

const vswitchSchema = z
  .object({
    uuid: s("Private network uuid."),
    name: s("Name."),
    tag: n("VLAN tag."),
    location: locationSchema,
    networkIp: sn("Network in CIDR notation."),
    gateway: gatewaySchema,
    status: s('Status, e.g. "Active".'),
    createdAt: when("Created"),
  })
  .describe("A private network (vswitch).").meta({ title: "Vswitch" });

const snapshotSchema = z
  .object({
    id: s("Snapshot uuid."),
    name: s("Name."),
    description: s("Description."),
    status: s('Status as the API reports it, e.g. "Ready", "Error".'),
    currentHourlyPrice: nn("Current price per hour of keeping it."),
    currentCost: nn("Cost so far."),
    estimatedMonthly: nn("Estimated monthly price."),
    isCurrentState: z.boolean().describe("True when the instance currently runs from this snapshot's state."),
    attachedStorage: z.array(attachedStorageSchema).describe("Block storages included."),
    createdAt: when("Taken"),
  })
  .describe("A snapshot of an instance.").meta({ title: "SnapshotInfo" });

const backupSchema = z
  .object({
    id: s("Backup uuid."),
    schedule: sn("Schedule name."),
    currentCost: nn("Cost so far."),
    estThisMonth: nn("Estimated cost this month."),
    size: nn("Size."),
    createdAt: when("Taken"),
    attachedStorage: z.array(attachedStorageSchema).describe("Block storages included."),
  })
  .describe("A backup of an instance.").meta({ title: "BackupInfo" });

const creditEntrySchema = z
  .object({
    id: n("Entry id."),
    type: s('"Add" for an addition; the deduction value is host-specific.'),
    description: s("Description."),
    amount: n("Amount in rupiah."),
    balanceAfter: n("Balance after the transaction, in rupiah."),
    createdAt: sn("When, ISO 8601 UTC; the API's own text when it cannot be read (never a failure); null when it gives none."),
  })
  .describe("A credit transaction.").meta({ title: "CreditHistoryEntry" });

const billingReportSchema = z.object({
  id: s("Report uuid."),
  billingPeriod: s('The period, e.g. "August 2024".'),
  billingDate: s("Billing date, YYYY-MM-DD (the API's own text when it cannot be read)."),
  status: s('Status, e.g. "Settled", "Not Settled".'),
  fullySettle: z.boolean().describe("True when fully settled."),
  total: n("Total in rupiah."),
  canDownload: z.boolean().describe("True when the invoice can be downloaded."),
  services: z
    .array(
      z
        .object({
          service: s("Service name."),
          total: n("Total of the service."),
          reports: z
            .array(
              z
                .object({
                  id: n("Report line id."),
                  serviceName: s("Name of the billed object."),
                  serviceType: s("Kind of service."),
                  tierName: sn("Tier name."),
                  tierIcon: sn("Tier icon URL."),
                  totalCost: n("Total cost."),
                  details: z
                    .array(
                      z
                        .object({
                          name: s("Item."),
                          basePrice: n("Base price."),
                          totalUptimeHour: n("Billed hours."),
                          totalCost: n("Cost."),
                        })
                        .describe("One priced item.").meta({ title: "BillingReportDetail" }),
                    )
                    .describe("Priced items."),
                })
                .describe("One billed object.").meta({ title: "BillingReportItem" }),
            )
            .describe("Billed objects."),
        })
        .describe("A service group of the report.").meta({ title: "BillingServiceGroup" }),
    )
    .describe("Service groups."),
});

// ------------------------------------------------------------------------------------------- catalogue

const catalogLocationSchema = z
  .object({
    id: n("Location id: the Instance's locationId."),
    name: s('Location name, e.g. "Jakarta".'),
    code: sn('Short code, e.g. "JKT" (null when the host does not say).'),
    country: sn("Country (null when the host does not say)."),
  })
  .describe("A data-centre location.").meta({ title: "CatalogLocation" });

const tierPricesSchema = z
  .object({
    cpuPerHour: nn("Price of one shared CPU per hour."),
    dedicatedCpuPerHour: nn("Price of one dedicated CPU per hour (0 or null where the tier has none)."),
    memoryPerGbHour: nn("Price of one GB of memory per hour."),
    storagePerGbHour: nn("Price of one GB of storage per hour."),
    snapshotPerGbHour: nn("Price of one GB of snapshot per hour."),
    backupPerGbHour: nn("Price of one GB of backup per hour."),
  })
  .describe("Prices per hour of what the tier offers (each null when the host does not say).").meta({ title: "TierPrices" });

const catalogTierSchema = z
  .object({
    id: n("Tier id: the Instance's tierId."),
    name: s('Tier name, e.g. "Standard".'),
    description: sn("What the tier is for (null when the host does not say)."),
    dedicatedCpuAvailable: z
      .boolean()
      .nullable()
      .describe("True when the tier offers dedicated CPUs (Instance dedicatedCpu: true); null when the host does not say."),
    prices: tierPricesSchema,
  })
  .describe("A price tier and what it offers.").meta({ title: "CatalogTier" });

const osTemplateSchema = z
  .object({
    id: n("Template id: the Instance's templateId."),
    name: s('Operating system name, e.g. "Ubuntu".'),
    version: sn('Version, e.g. "22.04" (null when the host does not say).'),
    minCpu: nn("Least cpu an Instance of this template may have (null when the host does not say)."),
    minMemory: nn("Least memory in GB (null when the host does not say)."),
    minStorage: nn("Least storage in GB (null when the host does not say)."),
  })
  .describe("An OS template an Instance can be installed from, with its minimum sizes.").meta({ title: "OsTemplate" });

const blockStorageSchema = z
  .object({
    id: s("Block storage uuid: a BlockStorageAttachment's blockStorageId."),
    name: s("Name."),
    size: n("Size in GB."),
    status: sn("Status as the API reports it (null when it gives none)."),
    locationId: nn("Id of its location (null when the host names the location only and the name matches none)."),
    location: sn("Name of its location (null when the host does not say)."),
    attachedInstanceId: sn("Uuid of the instance it is attached to, null when detached."),
    attachedInstanceHostname: sn("Hostname of that instance, null when detached or not given."),
  })
  .describe("A block storage of the account, attached or not.").meta({ title: "BlockStorage" });

const firewallRuleInfoSchema = z
  .object({
    id: s("The rule's id: a FirewallRule's adoptId."),
    protocol: sn('"tcp" or "udp" (null when the API gives none).'),
    port: sn('Destination port or range, e.g. "22", "8000-9000" or "8000:9000" (null when the API gives none).'),
    sourceIp: sn("Source address or network, null for any."),
    action: sn('"accept" or "drop" (the API\'s own value when it is neither).'),
    description: sn("Description, null when none."),
  })
  .describe("One rule of an instance's firewall.").meta({ title: "FirewallRuleInfo" });

// ---------------------------------------------------------------------------------------------- registry

/** The schemas and docs of one SDK function. */
export interface FunctionDefinition<A extends z.ZodType, R extends z.ZodType> {
  /** Markdown description with an example (becomes the reference docs). */
  description: string;
  args: A;
  result: R;
}

const def = <A extends z.ZodType, R extends z.ZodType>(description: string, args: A, result: R): FunctionDefinition<A, R> => ({
  description,
  args,
  result,
});

const noArgs = z.strictObject({});
const example = (code: string) =>
  `\n\n## Example\n\n\`\`\`ts\n${code.includes("pulumi.") ? 'import * as pulumi from "@pulumi/pulumi";\n' : ""}` +
  `import * as vmhost from "pulumi-vmhost";\n${runnable(code)}\n\`\`\``;

/**
 * An example that awaits, as a program that runs as written. A Pulumi TypeScript program is a CommonJS module (the
 * default template's and examples/*'s tsconfig), where a top-level `await` does not compile (TS1378), so the calls go
 * in the async function a program may export (`export = async () => ...`); its result becomes the stack outputs, so
 * each `export const x = ...` of the example is returned as `x`.
 */
function runnable(code: string): string {
  if (!/\bawait\b/.test(code)) return code;
  const outputs: string[] = [];
  const body = code.split("\n").map((line) =>
    line.replace(/^export const (\w+)/, (_m, name: string) => {
      outputs.push(name);
      return `const ${name}`;
    }),
  );
  if (outputs.length > 0) body.push(`return { ${outputs.join(", ")} };`);
  return `export = async () => {\n${body.map((l) => (l ? `  ${l}` : l)).join("\n")}\n};`;
}

/** Every SDK function's argument and result schemas, keyed by function name. */
export const functionSchemas = {
  getFirewallRules: def(
    "Lists the rules of an instance's firewall (every page): ids for a FirewallRule's adoptId." +
      example(`const { rules } = await vmhost.getFirewallRules({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });\nconst ssh = rules.find((r) => r.port === "22");`),
    z.strictObject({ instanceId: instanceIdArg }),
    z.object({ rules: z.array(firewallRuleInfoSchema).describe("The rules.") }),
  ),
  getLocations: def(
    "Lists the data-centre locations of the host: the valid Instance `locationId` values." +
      example(`const { locations } = await vmhost.getLocations();\nexport const locationNames = locations.map((l) => \`\${l.id}: \${l.name}\`);`),
    noArgs,
    z.object({ locations: z.array(catalogLocationSchema).describe("The locations.") }),
  ),
  getLocation: def(
    "Finds one location by name (case-insensitive) or id; fails listing the valid names when none matches. " +
      "Use it so a program says `Jakarta` instead of an id that differs between hosts." +
      example(
        `const jakarta = vmhost.getLocationOutput({ name: "Jakarta" });\n` +
          `const vm = new vmhost.Instance("web", { locationId: jakarta.id, /* ... */ });`,
      ),
    z.strictObject({
      name: z.string({ error: 'name must be a string, e.g. "Jakarta"' }).trim().min(1, 'name must not be empty, e.g. "Jakarta"').optional().describe('The location\'s name, e.g. "Jakarta" (case-insensitive).'),
      id: positiveInt("id", "1").optional().describe("The location's id."),
    }).refine((a) => a.name !== undefined || a.id !== undefined, { error: 'give name (e.g. "Jakarta") or id' }),
    catalogLocationSchema,
  ),
  getTiers: def(
    "Lists the price tiers with what each offers (dedicated CPUs, prices): the valid Instance `tierId` values." +
      example(`const { tiers } = await vmhost.getTiers();\nconst dedicated = tiers.filter((t) => t.dedicatedCpuAvailable);`),
    noArgs,
    z.object({ tiers: z.array(catalogTierSchema).describe("The tiers.") }),
  ),
  getTier: def(
    "Finds one tier by name (case-insensitive) or id; fails listing the valid names when none matches." +
      example(`const premium = await vmhost.getTier({ name: "Premium" });\nconst canDedicate = premium.dedicatedCpuAvailable === true;`),
    z.strictObject({
      name: z.string({ error: 'name must be a string, e.g. "Standard"' }).trim().min(1, 'name must not be empty, e.g. "Standard"').optional().describe('The tier\'s name, e.g. "Standard" (case-insensitive).'),
      id: positiveInt("id", "2").optional().describe("The tier's id."),
    }).refine((a) => a.name !== undefined || a.id !== undefined, { error: 'give name (e.g. "Standard") or id' }),
    catalogTierSchema,
  ),
  getOsTemplates: def(
    "Lists the OS templates an Instance can be installed from, each with its minimum cpu, memory and storage: the valid Instance `templateId` values." +
      example(`const { templates } = await vmhost.getOsTemplates();\nconst ubuntu = templates.filter((t) => t.name === "Ubuntu");`),
    noArgs,
    z.object({ templates: z.array(osTemplateSchema).describe("The OS templates.") }),
  ),
  getOsTemplate: def(
    "Finds one OS template by name and version (case-insensitive; the version may be left out when the name has one " +
      "template), or by id; fails listing the valid ones when none matches." +
      example(
        `const ubuntu = vmhost.getOsTemplateOutput({ name: "Ubuntu", version: "22.04" });\n` +
          `const vm = new vmhost.Instance("web", { templateId: ubuntu.id, storage: ubuntu.apply((t) => Math.max(40, t.minStorage ?? 0)), /* ... */ });`,
      ),
    z.strictObject({
      name: z.string({ error: 'name must be a string, e.g. "Ubuntu"' }).trim().min(1, 'name must not be empty, e.g. "Ubuntu"').optional().describe('The operating system\'s name, e.g. "Ubuntu" (case-insensitive).'),
      version: z.string({ error: 'version must be a string, e.g. "22.04"' }).trim().min(1, 'version must not be empty, e.g. "22.04"').optional().describe('The version, e.g. "22.04"; needed when the name has several templates.'),
      id: positiveInt("id", "1").optional().describe("The template's id."),
    }).refine((a) => a.name !== undefined || a.id !== undefined, { error: 'give name (e.g. "Ubuntu") or id' }),
    osTemplateSchema,
  ),
  getBlockStorages: def(
    "Lists the account's block storages, attached or not, with their location and the instance each is attached to " +
      "(getBlockStorageOptions lists only unattached ones: a program that finds its disk there loses it once attached). " +
      "Optionally only those of a location, or with a name." +
      example(
        `const { blockStorages } = await vmhost.getBlockStorages({ locationId: 1 });\n` +
          `const free = blockStorages.filter((b) => b.attachedInstanceId === null);`,
      ),
    z.strictObject({
      locationId: locationIdArg.optional().describe("Only block storages of this location."),
      name: z.string({ error: "name must be a string" }).trim().min(1, "name must not be empty").optional().describe("Only block storages with this name (case-insensitive)."),
    }),
    z.object({ blockStorages: z.array(blockStorageSchema).describe("The block storages.") }),
  ),
  getBlockStorage: def(
    "Finds one block storage by name (case-insensitive; attached or not, so the lookup gives the same disk on every run), " +
      "optionally in one location; fails when none or several match." +
      example(
        `declare const vm: vmhost.Instance;\nconst data = vmhost.getBlockStorageOutput({ name: "jkt-data-50" });\n` +
          `new vmhost.BlockStorageAttachment("data", { blockStorageId: data.id, instanceId: vm.id });`,
      ),
    z.strictObject({
      name: z.string({ error: 'name is required: the block storage\'s name, e.g. "data-50"' }).trim().min(1, "name must not be empty").describe("The block storage's name (case-insensitive)."),
      locationId: locationIdArg.optional().describe("Only look in this location."),
    }),
    blockStorageSchema,
  ),
  getSizeTemplates: def(
    "Lists the instance size templates (presets of CPU, memory in GB and storage in GB)." +
      example(`const { templates } = await vmhost.getSizeTemplates();\nconst small = templates.find((t) => t.totalRam === 1);`),
    noArgs,
    z.object({ templates: z.array(sizeTemplateSchema).describe("The size templates.") }),
  ),
  getInstances: def(
    "Lists the account's instances (every page), optionally filtered by hostname or status." +
      example(`const { instances } = await vmhost.getInstances({ statuses: ["Running"] });\nexport const running = instances.map((i) => i.hostname);`),
    z.strictObject({
      search: z.string().optional().describe("Keep instances whose hostname matches this text."),
      statuses: z.array(z.string()).optional().describe('Keep only these statuses, e.g. ["Running", "Stopped"].'),
      sort: z.string().optional().describe("Sort by `created_at` or `cost`."),
    }),
    z.object({ instances: z.array(instanceSummarySchema).describe("The instances.") }),
  ),
  getInstance: def(
    "Reads one instance's details (sizes in GB, dates ISO 8601 UTC, absent values null)." +
      example(`const web = await vmhost.getInstance({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });\nexport const ip = web.publicIp?.ipAddress;`),
    z.strictObject({ instanceId: instanceIdArg }),
    instanceDetailSchema,
  ),
  getInstanceMetrics: def(
    "Reads an instance's CPU, memory, network and disk time series. CPU is a percentage, memory in GB; " +
      "the last point of each series is an in-progress bucket (often 0)." +
      example(`const m = await vmhost.getInstanceMetrics({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", period: "hour" });\nconst peakCpu = Math.max(...m.cpu.map((p) => p.cpu));`),
    z.strictObject({
      instanceId: instanceIdArg,
      period: z.enum(["hour", "day", "week", "month", "year"], { error: 'period must be one of "hour", "day", "week", "month", "year"' }).describe("The time span: hour, day, week, month or year.").meta({ title: "MetricsPeriod" }),
    }),
    z.object({
      cpu: z.array(z.object({ time: s("Point time, ISO 8601 UTC."), cpu: n("CPU use in percent.") }).describe("A CPU point.").meta({ title: "CpuPoint" })).describe("CPU series."),
      memory: z
        .array(
          z
            .object({
              time: s("Point time, ISO 8601 UTC."),
              rawMaxMemory: n("Memory available, GB."),
              maxMemory: s("Memory available, as text."),
              rawUsageMemory: n("Memory used, GB."),
              usageMemory: s("Memory used, as text."),
            })
            .describe("A memory point.").meta({ title: "MemoryPoint" }),
        )
        .describe("Memory series."),
      network: z
        .array(
          z
            .object({ time: s("Point time, ISO 8601 UTC."), rawNetin: n("Inbound traffic."), netin: s("Inbound, as text."), rawNetout: n("Outbound traffic."), netout: s("Outbound, as text.") })
            .describe("A network point.").meta({ title: "NetworkPoint" }),
        )
        .describe("Network series."),
      disk: z
        .array(
          z
            .object({ time: s("Point time, ISO 8601 UTC."), rawDiskwrite: n("Bytes written."), diskwrite: s("Written, as text."), rawDiskread: n("Bytes read."), diskread: s("Read, as text.") })
            .describe("A disk point.").meta({ title: "DiskPoint" }),
        )
        .describe("Disk series."),
    }),
  ),
  getVswitches: def(
    "Lists the account's private networks (vswitches)." + example(`const { vswitches } = await vmhost.getVswitches();\nconst backend = vswitches.find((v) => v.name === "backend");`),
    noArgs,
    z.object({ vswitches: z.array(vswitchSchema).describe("The private networks.") }),
  ),
  getVswitchOptions: def(
    "Lists the private networks an instance in a location can join." + example(`const { vswitches } = await vmhost.getVswitchOptions({ locationId: 1 });`),
    z.strictObject({ locationId: locationIdArg }),
    z.object({ vswitches: z.array(vswitchSchema).describe("The private networks available in the location.") }),
  ),
  getVswitch: def(
    "Reads one private network's details." + example(`const net = await vmhost.getVswitch({ vswitchId: "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4" });\nexport const activeInstances = net.totalActiveInstance;`),
    z.strictObject({ vswitchId: uuidArg("vswitchId", "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4").describe("The private network's uuid.") }),
    z
      .object({
        uuid: s("Private network uuid."),
        name: s("Name."),
        tag: n("VLAN tag."),
        vid: sn("VLAN id."),
        location: locationSchema,
        totalActiveInstance: n("Instances attached and active."),
        status: s('Status, e.g. "Active".'),
        gateway: gatewaySchema,
        createdAt: when("Created"),
        lastUpdateAt: when("Last updated"),
      })
      .describe("A private network's details."),
  ),
  getVswitchGraph: def(
    "Reads a private network's topology graph (nodes and edges, as the panel draws it)." +
      example(`const net = await vmhost.getVswitch({ vswitchId: "0b7e9c1d-2f3a-4b5c-8d6e-7f8091a2b3c4" });\nconst graph = await vmhost.getVswitchGraph({ vswitchId: net.tag });\nconst members = graph.nodes.length;`),
    z.strictObject({
      vswitchId: z
        .union([z.number().int(), z.string().min(1)], { error: "vswitchId must be the private network's integer id (its tag, from getVswitches or getVswitch)" })
        .describe(
          "The private network's integer id: api-spec.md §4.4 types this route's `vswitch_id` as an integer, unlike the other " +
            "private-network routes, which take the uuid. The only integer a network shows is its `tag` (getVswitches, getVswitch), " +
            "which the bundled simulator takes (the spec does not say the two are one). A string is sent as given (a host that takes the uuid).",
        ),
    }),
    z.object({
      nodes: z
        .array(
          z
            .object({
              id: s("Node id."),
              type: sn("Node type."),
              position: z.object({ x: n("X."), y: n("Y.") }).nullable().describe("Position in the drawing.").meta({ title: "VswitchGraphPosition" }),
              data: z.record(z.string(), z.unknown()).nullable().describe("Node data (free-form)."),
              style: z.record(z.string(), z.unknown()).nullable().describe("Node style (free-form)."),
              parent: sn("Parent node id."),
              draggable: z.boolean().nullable().describe("Whether the panel lets users drag it."),
            })
            .describe("A graph node.").meta({ title: "VswitchGraphNode" }),
        )
        .describe("Nodes."),
      edges: z
        .array(z.object({ id: s("Edge id."), source: s("Source node id."), target: s("Target node id."), label: sn("Label.") }).describe("A graph edge.").meta({ title: "VswitchGraphEdge" }))
        .describe("Edges."),
    }),
  ),
  getBlockStorageOptions: def(
    "Lists the block storages of a location that are not attached to any instance (candidates for a BlockStorageAttachment)." +
      example(`const { blockStorages } = await vmhost.getBlockStorageOptions({ locationId: 1 });`),
    z.strictObject({ locationId: locationIdArg }),
    z.object({
      blockStorages: z
        .array(z.object({ id: s("Block storage id."), name: s("Name."), size: n("Size in GB.") }).describe("An available block storage.").meta({ title: "BlockStorageOption" }))
        .describe("The available block storages."),
    }),
  ),
  getSnapshots: def(
    "Lists an instance's snapshots (the same values the Snapshot resource outputs)." +
      example(`const { snapshots } = await vmhost.getSnapshots({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });\nconst ready = snapshots.filter((s) => s.status === "Ready");`),
    z.strictObject({ instanceId: instanceIdArg }),
    z.object({ snapshots: z.array(snapshotSchema).describe("The snapshots.") }),
  ),
  getSnapshotPrice: def(
    "Estimates the monthly price of a snapshot of an instance at a tier." + example(`const { pricePerMonth } = await vmhost.getSnapshotPrice({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", tierId: 2 });`),
    z.strictObject({ instanceId: instanceIdArg, tierId: tierIdArg }),
    z.object({ pricePerMonth: n("Estimated price per month.") }),
  ),
  getBackupPrice: def(
    "Estimates the price of backups of an instance at a tier." + example(`const price = await vmhost.getBackupPrice({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", tierId: 2 });`),
    z.strictObject({ instanceId: instanceIdArg, tierId: tierIdArg }),
    z.object({
      storageSize: n("Storage size the estimate is for."),
      blockStorageSize: n("Block storage size the estimate is for."),
      pricePerHour: n("Price per hour."),
      pricePerMonth: n("Price per month."),
    }),
  ),
  getBackups: def(
    "Lists an instance's backups (every page)." + example(`const { backups } = await vmhost.getBackups({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" });`),
    z.strictObject({ instanceId: instanceIdArg }),
    z.object({ backups: z.array(backupSchema).describe("The backups.") }),
  ),
  getChangeTierCost: def(
    "Estimates the monthly cost of moving an instance to another tier." +
      example(`const cost = await vmhost.getChangeTierCost({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", tierId: 3 });\nconst extra = cost.estimatedNewMonthlyCost - cost.currentMonthlyCost;`),
    z.strictObject({ instanceId: instanceIdArg, tierId: tierIdArg.describe("The target tier's integer id.") }),
    z.object({ currentMonthlyCost: n("The instance's monthly cost now."), estimatedNewMonthlyCost: n("Estimated monthly cost at the target tier.") }),
  ),
  getPaymentMethods: def(
    "Lists the payment methods for a credit top-up, with their fees (flattened across the categories bank, card, ritel, ewallet, qris)." +
      example(`const { methods } = await vmhost.getPaymentMethods({ amount: 100000 });\nconst qris = methods.filter((m) => m.category === "qris");`),
    z.strictObject({ amount: z.number().int("amount must be an integer number of rupiah").positive("amount must be positive").optional().describe("Top-up amount (rupiah) the fees are computed for.") }),
    z.object({
      methods: z
        .array(
          z
            .object({
              category: s('Category: "bank", "card", "ritel", "ewallet" or "qris".'),
              name: s("Name."),
              code: s("Code to pay with."),
              image: sn("Logo URL."),
              fee: n("Fee."),
              vat: n("VAT."),
            })
            .describe("A payment method.").meta({ title: "PaymentMethod" }),
        )
        .describe("The payment methods."),
    }),
  ),
  getCreditHistory: def(
    "Lists credit transactions (every page), optionally between two dates and of one kind. Amounts are numbers of rupiah." +
      example(`const { entries } = await vmhost.getCreditHistory({ start: "2024-08-01", end: "2024-08-31", type: "deduction" });`),
    z.strictObject({
      start: isoDate("start").optional().describe("First day, YYYY-MM-DD."),
      end: isoDate("end").optional().describe("Last day, YYYY-MM-DD."),
      type: z.enum(["addition", "deduction"], { error: 'type must be "addition" or "deduction"' }).optional().describe('"addition" or "deduction" (the API\'s A / D).').meta({ title: "CreditHistoryType" }),
    }),
    z.object({ entries: z.array(creditEntrySchema).describe("The transactions.") }),
  ),
  getBillingReport: def(
    "Reads the billing report of one billing date." + example(`const report = await vmhost.getBillingReport({ date: "2024-08-01" });\nexport const total = report.total;`),
    z.strictObject({ date: isoDate("date").describe("The billing date, YYYY-MM-DD.") }),
    billingReportSchema.describe("A billing report."),
  ),
  getInstancesWithoutPublicIp: def(
    "Lists the instances of a location that have no public address (candidates for a PublicIp)." +
      example(`const { instances } = await vmhost.getInstancesWithoutPublicIp({ locationId: 1 });`),
    z.strictObject({ locationId: locationIdArg }),
    z.object({
      instances: z.array(z.object({ id: s("Instance uuid."), hostname: s("Hostname.") }).describe("An instance without a public address.").meta({ title: "InstanceWithoutPublicIp" })).describe("The instances."),
    }),
  ),
  rollbackSnapshot: def(
    "An ACTION, not a read: rolls an instance back to one of its snapshots, waits until the instance is idle again, " +
      "and returns its status. The rollback leaves the instance STOPPED; an Instance declared with `powerState: \"running\"` " +
      "starts it on the next `pulumi up --refresh` (a plain up compares with the state, which learns of the stop only from a refresh), or start it yourself. Because a Pulumi program runs on every preview and up, " +
      "guard the call (e.g. behind a config flag) so it runs once; during a preview it does nothing and returns `performed: false`." +
      example(
        `const cfg = new pulumi.Config();\nconst rollbackTo = cfg.get("rollbackTo"); // a snapshot uuid, set for one run\n` +
          `if (rollbackTo) {\n  await vmhost.rollbackSnapshot({ instanceId: "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab", snapshotId: rollbackTo });\n}`,
      ),
    z.strictObject({
      instanceId: instanceIdArg,
      snapshotId: uuidArg("snapshotId", "a snapshot id from getSnapshots").describe("The uuid of the snapshot to roll back to (see getSnapshots)."),
      timeout: z.string().optional().describe('How long to wait for the instance to be idle before and after, e.g. "20m" (default 20m).'),
    }),
    z.object({
      performed: z.boolean().describe("False during a preview (nothing was done)."),
      instanceId: s("The instance's uuid."),
      snapshotId: s("The snapshot rolled back to."),
      status: sn('The instance status after the rollback settled (typically "Stopped"); null during a preview.'),
    }),
  ),
};

/** Names of the SDK functions. */
export type FunctionName = keyof typeof functionSchemas;
