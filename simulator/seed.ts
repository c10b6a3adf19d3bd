/**
 * The seeded catalogue and account history. Numbers, names and dates are fixed; uuids derive from the
 * seed (default {@link DEFAULT_SEED}) through {@link stableUuid}, so they are the same in every run with
 * the same seed. simulator/README.md lists what tests and examples may rely on.
 */
import { stableUuid } from "./ids";
import type {
  BillingReport, BlockStorage, CreditEntry, Location, OsTemplate, PaymentMethod, PublicIp, SimState,
  SizeTemplate, Tier, Vswitch,
} from "./state";
import { monthYear, round2, ymd } from "./wire";

/** The seed used when none is given. */
export const DEFAULT_SEED = "vmhost-sim";

/** Customer id shown in created-instance responses. */
export const CUSTOMER_ID = 4242;

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number => Date.UTC(y, mo - 1, d, h, mi, s);

/** When the seeded catalogue was "created" (25 January 2024 14:37 Jakarta). */
const CATALOGUE_CREATED = utc(2024, 1, 25, 7, 37, 0);

function locations(): Location[] {
  const flag = (cc: string): string => `https://flagcdn.com/w40/${cc}.png`;
  return [
    { id: 1, name: "Jakarta", code: "JKT", country: "Indonesia", flag: flag("id"), autoIpPrefix: "103.150.12" },
    { id: 2, name: "Surabaya", code: "SBY", country: "Indonesia", flag: flag("id"), autoIpPrefix: "103.160.22" },
    { id: 3, name: "Singapore", code: "SGP", country: "Singapore", flag: flag("sg"), autoIpPrefix: "139.99.32" },
  ];
}

function tiers(): Tier[] {
  const icon = (n: string): string => `https://assets.vmhost.local/tiers/${n}.svg`;
  return [
    {
      id: 1, name: "Basic", description: "Shared CPU for light workloads", icon: icon("basic"),
      dedicatedCpuAvailable: false, cpuPerHour: 60, dedicatedCpuPerHour: 0, memoryPerGbHour: 40,
      storagePerGbHour: 1, snapshotPerGbHour: 0.5, backupPerGbHour: 0.4,
    },
    {
      id: 2, name: "Standard", description: "Shared CPU on faster nodes", icon: icon("standard"),
      dedicatedCpuAvailable: false, cpuPerHour: 90, dedicatedCpuPerHour: 0, memoryPerGbHour: 60,
      storagePerGbHour: 1.5, snapshotPerGbHour: 0.75, backupPerGbHour: 0.6,
    },
    {
      id: 3, name: "Premium", description: "NVMe nodes; dedicated CPU available", icon: icon("premium"),
      dedicatedCpuAvailable: true, cpuPerHour: 150, dedicatedCpuPerHour: 200, memoryPerGbHour: 90,
      storagePerGbHour: 2, snapshotPerGbHour: 1, backupPerGbHour: 0.8,
    },
  ];
}

function templates(): OsTemplate[] {
  const img = (n: string): string => `https://assets.vmhost.local/os/${n}.png`;
  return [
    { id: 1, osId: 1, name: "Ubuntu", version: "22.04", image: img("ubuntu"), minCpu: 1, minMemory: 1, minStorage: 20 },
    { id: 2, osId: 2, name: "Debian", version: "12", image: img("debian"), minCpu: 1, minMemory: 1, minStorage: 10 },
    { id: 3, osId: 3, name: "Rocky Linux", version: "9", image: img("rocky"), minCpu: 1, minMemory: 2, minStorage: 20 },
    { id: 4, osId: 4, name: "Windows Server", version: "2022", image: img("windows"), minCpu: 2, minMemory: 4, minStorage: 40 },
  ];
}

function sizeTemplates(): SizeTemplate[] {
  const t = utc(2023, 1, 27, 2, 42, 31);
  return [
    { id: 1, title: "Nano", cpu: 1, ramGb: 1, diskGb: 20, createdAt: t, updatedAt: t },
    { id: 2, title: "Small", cpu: 1, ramGb: 2, diskGb: 30, createdAt: t, updatedAt: t },
    { id: 3, title: "Medium", cpu: 2, ramGb: 4, diskGb: 60, createdAt: t, updatedAt: t },
    { id: 4, title: "Large", cpu: 4, ramGb: 8, diskGb: 120, createdAt: t, updatedAt: t },
    { id: 5, title: "XLarge", cpu: 8, ramGb: 16, diskGb: 240, createdAt: t, updatedAt: t },
  ];
}

function paymentMethods(): PaymentMethod[] {
  const img = (n: string): string => `https://assets.vmhost.local/payments/${n}.png`;
  return [
    { category: "bank", name: "BCA Virtual Account", code: "BCAVA", image: img("bca"), flatFee: 4000, percentFee: 0 },
    { category: "bank", name: "BNI Virtual Account", code: "BNIVA", image: img("bni"), flatFee: 4000, percentFee: 0 },
    { category: "bank", name: "Mandiri Virtual Account", code: "MANDIRIVA", image: img("mandiri"), flatFee: 4500, percentFee: 0 },
    { category: "card", name: "Credit Card", code: "CC", image: img("card"), flatFee: 2000, percentFee: 0.029 },
    { category: "ritel", name: "Alfamart", code: "ALFAMART", image: img("alfamart"), flatFee: 5000, percentFee: 0 },
    { category: "ritel", name: "Indomaret", code: "INDOMARET", image: img("indomaret"), flatFee: 5000, percentFee: 0 },
    { category: "ewallet", name: "OVO", code: "OVO", image: img("ovo"), flatFee: 0, percentFee: 0.015 },
    { category: "ewallet", name: "DANA", code: "DANA", image: img("dana"), flatFee: 0, percentFee: 0.015 },
    { category: "ewallet", name: "ShopeePay", code: "SHOPEEPAY", image: img("shopeepay"), flatFee: 0, percentFee: 0.02 },
    { category: "qris", name: "QRIS", code: "QRIS", image: img("qris"), flatFee: 0, percentFee: 0.007 },
  ];
}

/** Fee and VAT (11% of the fee) of a payment method for a top-up amount, in whole Rupiah. */
export function paymentFee(method: PaymentMethod, amount: number): { fee: number; vat: number } {
  const fee = Math.ceil(method.flatFee + method.percentFee * Math.max(0, amount));
  return { fee, vat: Math.ceil(fee * 0.11) };
}

function publicIps(seed: string): PublicIp[] {
  const reserved: [number, string][] = [
    [1, "103.150.10.11"], [1, "103.150.10.12"], [1, "103.150.10.13"],
    [2, "103.160.20.11"], [2, "103.160.20.12"],
    [3, "139.99.30.11"], [3, "139.99.30.12"],
  ];
  return reserved.map(([locationId, address]) => ({
    uuid: stableUuid(seed, `public-ip:${address}`), address, locationId, instanceUuid: null, rdns: null,
    seeded: true, createdAt: CATALOGUE_CREATED,
  }));
}

function vswitches(seed: string): Vswitch[] {
  const v = (name: string, tag: number, locationId: number, networkIp: string, gw: [string, string] | null): Vswitch => ({
    uuid: stableUuid(seed, `vswitch:${name}`), name, tag, locationId, networkIp,
    gateway: gw ? { uuid: stableUuid(seed, `gateway:${gw[0]}`), hostname: gw[0], privateIp: gw[1] } : null,
    status: "Active", createdAt: CATALOGUE_CREATED, updatedAt: CATALOGUE_CREATED,
  });
  return [
    v("jkt-private-1", 101, 1, "10.10.1.0/24", ["jkt-gw-1", "10.10.1.1"]),
    v("jkt-private-2", 102, 1, "10.10.2.0/24", null),
    v("sby-private-1", 201, 2, "10.20.1.0/24", null),
    v("sgp-private-1", 301, 3, "10.30.1.0/24", ["sgp-gw-1", "10.30.1.1"]),
  ];
}

function blockStorages(seed: string): BlockStorage[] {
  const b = (name: string, sizeGb: number, locationId: number): BlockStorage => ({
    uuid: stableUuid(seed, `block-storage:${name}`), name, sizeGb, locationId, instanceUuid: null,
    createdAt: CATALOGUE_CREATED,
  });
  return [
    b("jkt-data-50", 50, 1), b("jkt-data-100", 100, 1), b("jkt-archive-20", 20, 1),
    b("sby-data-50", 50, 2), b("sgp-data-40", 40, 3),
  ];
}

/**
 * Six monthly reports (May to October 2024, billed on the first of the next month) and the credit
 * history behind them: a top-up early each month, a deduction of the report total on each billing date.
 */
function billingHistory(seed: string, tierList: Tier[]): { reports: BillingReport[]; credit: CreditEntry[]; balance: number } {
  const reports: BillingReport[] = [];
  const events: { at: number; type: "Add" | "Deduct"; description: string; amount: number }[] = [];
  const standard = tierList[1]!;
  const premium = tierList[2]!;
  const topups = [3_000_000, 1_500_000, 1_500_000, 1_500_000, 1_500_000, 1_500_000];
  let lineId = 9001;
  for (let i = 0; i < 6; i++) {
    const month = 5 + i; // May..October
    const periodStart = utc(2024, month, 1, 0, 0, 0) - 7 * 3600 * 1000; // midnight Jakarta
    const billedAt = utc(2024, month + 1, 1, 1, 0, 0); // 08:00 Jakarta on the 1st of the next month
    const hours = (utc(2024, month + 1, 1) - utc(2024, month, 1)) / 3600000;
    const vm = (name: string, tier: Tier, cpu: number, mem: number, disk: number) => ({
      id: lineId++, service: "Virtual Machine", serviceName: name, serviceType: "instance",
      tierName: tier.name, tierIcon: tier.icon,
      details: [
        { name: "CPU", basePrice: tier.cpuPerHour * cpu, totalUptimeHour: hours, totalCost: round2(tier.cpuPerHour * cpu * hours) },
        { name: "Memory", basePrice: tier.memoryPerGbHour * mem, totalUptimeHour: hours, totalCost: round2(tier.memoryPerGbHour * mem * hours) },
        { name: "Storage", basePrice: tier.storagePerGbHour * disk, totalUptimeHour: hours, totalCost: round2(tier.storagePerGbHour * disk * hours) },
      ],
    });
    const lines = [
      vm("web-01", standard, 2, 4, 60),
      vm("db-01", premium, 2, 8, 120),
      {
        id: lineId++, service: "Block Storage", serviceName: "jkt-backup-200", serviceType: "block_storage",
        tierName: standard.name, tierIcon: standard.icon,
        details: [{ name: "Storage", basePrice: 0.5 * 200, totalUptimeHour: hours, totalCost: round2(0.5 * 200 * hours) }],
      },
    ];
    const total = round2(lines.reduce((s, l) => s + l.details.reduce((t, d) => t + d.totalCost, 0), 0));
    const last = i === 5;
    reports.push({
      id: 700 + i, uuid: stableUuid(seed, `billing-report:2024-${month}`), period: monthYear(periodStart + 3600000),
      billingDate: ymd(billedAt), status: last ? "Not Settled" : "Settled", fullySettle: !last, canDownload: !last,
      lines,
    });
    events.push({ at: utc(2024, month, 3, 3, 15, 0), type: "Add", description: "Top up via BCA Virtual Account", amount: topups[i]! });
    events.push({ at: billedAt, type: "Deduct", description: `Billing ${monthYear(periodStart + 3600000)}`, amount: total });
  }
  events.sort((a, b) => a.at - b.at);
  let balance = 0;
  const credit: CreditEntry[] = events.map((e, index) => {
    balance = round2(balance + (e.type === "Add" ? e.amount : -e.amount));
    return { id: 3001 + index, type: e.type, description: e.description, amount: e.amount, balanceAfter: balance, createdAt: e.at };
  });
  return { reports, credit, balance };
}

/** A fresh account in its seeded state. */
export function createSeedState(seed: string = DEFAULT_SEED): SimState {
  const tierList = tiers();
  const history = billingHistory(seed, tierList);
  const locs = locations();
  return {
    seed,
    customerId: CUSTOMER_ID,
    locations: locs,
    tiers: tierList,
    templates: templates(),
    sizeTemplates: sizeTemplates(),
    paymentMethods: paymentMethods(),
    publicIps: publicIps(seed),
    vswitches: vswitches(seed),
    blockStorages: blockStorages(seed),
    instances: [],
    snapshots: [],
    backups: [],
    firewallRules: [],
    operations: [],
    invoices: [],
    credit: history.credit,
    balance: history.balance,
    billingReports: history.reports,
    deletedInstances: [],
    counters: {
      instanceId: 1001,
      instanceSeq: 1,
      creditId: 3001 + history.credit.length,
      billingId: 5001,
      autoIpHost: Object.fromEntries(locs.map((l) => [l.id, 10])),
      invoiceNumber: 1,
    },
  };
}
