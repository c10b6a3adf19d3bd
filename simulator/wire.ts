/**
 * Wire formatting: the several date, size and money texts the service uses (api-spec.md §2 and
 * real-api-facts.md). The simulator deliberately answers with each resource's own variant so the client's
 * normalizers are exercised for real. Text timestamps are in Asia/Jakarta time (UTC+7, no DST); ISO
 * timestamps are UTC with six fractional digits, as Laravel prints them.
 */

const JAKARTA_OFFSET_MS = 7 * 3600 * 1000;
const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * How a host may write the zone of its text timestamps (wire variant `textTimeZone`): Jakarta time followed by
 * ` WIB`, `+07:00` or ` GMT+7`, or UTC time followed by ` UTC`. Absent: Jakarta time with no zone (the samples).
 */
export type TextTimeZone = "WIB" | "+07:00" | "GMT+7" | "UTC";

/** The offset of the wall-clock time a text timestamp is written in, and the suffix after it. */
function zoneOf(zone: TextTimeZone | undefined): { offsetMs: number; suffix: string } {
  switch (zone) {
    case undefined: return { offsetMs: JAKARTA_OFFSET_MS, suffix: "" };
    case "UTC": return { offsetMs: 0, suffix: " UTC" };
    case "+07:00": return { offsetMs: JAKARTA_OFFSET_MS, suffix: "+07:00" };
    default: return { offsetMs: JAKARTA_OFFSET_MS, suffix: ` ${zone}` };
  }
}

/** Calendar parts of an instant as seen in Jakarta (or at `offsetMs` from UTC). */
export function jakartaParts(epochMs: number, offsetMs = JAKARTA_OFFSET_MS): {
  year: number; month: number; day: number; hour: number; minute: number; second: number;
} {
  const d = new Date(epochMs + offsetMs);
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(),
  };
}

/** Epoch ms of midnight (Jakarta) of a `YYYY-MM-DD` date, or null when the text is not a valid date. */
export function jakartaDateStart(ymd: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d) - JAKARTA_OFFSET_MS;
  const back = jakartaParts(ms);
  if (back.year !== y || back.month !== mo || back.day !== d) return null;
  return ms;
}

/** `2023-01-27T02:42:31.000000Z` (created instance, size templates). */
export function isoMicros(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, ".000000Z");
}

/** `25 January 2024, 14:43` (instance list). */
export function dayMonthYearCommaTime(epochMs: number, zone?: TextTimeZone): string {
  const z = zoneOf(zone);
  const p = jakartaParts(epochMs, z.offsetMs);
  return `${pad2(p.day)} ${MONTHS[p.month - 1]} ${p.year}, ${pad2(p.hour)}:${pad2(p.minute)}${z.suffix}`;
}

/** `25 January 2024 14:37` (snapshots, backups, private networks). */
export function dayMonthYearTime(epochMs: number, zone?: TextTimeZone): string {
  const z = zoneOf(zone);
  const p = jakartaParts(epochMs, z.offsetMs);
  return `${pad2(p.day)} ${MONTHS[p.month - 1]} ${p.year} ${pad2(p.hour)}:${pad2(p.minute)}${z.suffix}`;
}

/** `26-08-2024 10:00:00` (instance detail). */
export function dashDateTime(epochMs: number, zone?: TextTimeZone): string {
  const z = zoneOf(zone);
  const p = jakartaParts(epochMs, z.offsetMs);
  return `${pad2(p.day)}-${pad2(p.month)}-${p.year} ${pad2(p.hour)}:${pad2(p.minute)}:${pad2(p.second)}${z.suffix}`;
}

/** `2023-10-25 16:38` (RRD points). */
export function ymdHm(epochMs: number, zone?: TextTimeZone): string {
  const z = zoneOf(zone);
  const p = jakartaParts(epochMs, z.offsetMs);
  return `${p.year}-${pad2(p.month)}-${pad2(p.day)} ${pad2(p.hour)}:${pad2(p.minute)}${z.suffix}`;
}

/** `2024-10-25` (billing dates). */
export function ymd(epochMs: number): string {
  const p = jakartaParts(epochMs);
  return `${p.year}-${pad2(p.month)}-${pad2(p.day)}`;
}

/** `26/08/2024` (credit history). */
export function slashDate(epochMs: number): string {
  const p = jakartaParts(epochMs);
  return `${pad2(p.day)}/${pad2(p.month)}/${p.year}`;
}

/** `October 2024` (billing period). */
export function monthYear(epochMs: number): string {
  const p = jakartaParts(epochMs);
  return `${MONTHS[p.month - 1]} ${p.year}`;
}

/** `Rp10.000,00`: dot thousands separator, comma decimals (credit history money). */
export function rupiah(amount: number): string {
  const negative = amount < 0;
  const [whole, cents] = Math.abs(amount).toFixed(2).split(".") as [string, string];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
  return `${negative ? "-" : ""}Rp${grouped},${cents}`;
}

/** Rounds money and prices to two decimals, the precision the service shows. */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Human-readable byte count with a binary unit: `0 b`, `512 B`, `1.17 MB` (RRD display strings). */
export function humanBytes(bytes: number): string {
  if (bytes <= 0) return "0 b";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(2))} ${units[unit]}`;
}

/** Human-readable size of a decimal GB number: `0 b` for zero, else `1.17 GB` (RRD memory). */
export function humanGb(gb: number): string {
  return gb <= 0 ? "0 b" : `${Number(gb.toFixed(2))} GB`;
}
