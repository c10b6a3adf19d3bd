/**
 * Pure normalizers for the value formats the service returns. The same field arrives in several textual
 * forms depending on the host and the endpoint (real-api-facts.md), so every conversion happens once, here,
 * and nothing above `api/` re-parses a string.
 *
 * Every function throws a {@link NormalizeError} on a value it does not recognise; the zod schemas turn that
 * into a field-level issue, so a surprise format is reported with its field path instead of becoming a
 * silently wrong number.
 */

/** A value did not match any format a normalizer knows. */
export class NormalizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NormalizeError";
  }
}

/**
 * Offset of the service's wall-clock time from UTC, in hours. The text timestamp forms carry no zone; the
 * hosts are Indonesian and their samples line up with Asia/Jakarta (WIB, UTC+7, no daylight saving), so
 * zone-less text is read as UTC+7. Timestamps in ISO form with `Z` or an explicit offset are taken as given.
 */
export const SERVICE_UTC_OFFSET_HOURS = 7;

const SIZE_UNITS_IN_GB: Record<string, number> = {
  b: 1 / 1024 ** 3,
  byte: 1 / 1024 ** 3,
  bytes: 1 / 1024 ** 3,
  k: 1 / 1024 ** 2,
  kb: 1 / 1024 ** 2,
  kib: 1 / 1024 ** 2,
  m: 1 / 1024,
  mb: 1 / 1024,
  mib: 1 / 1024,
  g: 1,
  gb: 1,
  gib: 1,
  t: 1024,
  tb: 1024,
  tib: 1024,
};

/** Round away binary-fraction noise (2048 MB -> 2, 1.17 GB -> 1.17) without hiding real fractions. */
function roundGb(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * A size in GB, from any form the service uses: `"2 GB"`, `"30GB"` (no space), `"2048 MB"`, `"1.17 GB"`,
 * `"0 b"`, a bare number string `"40"`, or a number. Bare numbers are GB: create/resize requests and
 * responses and size templates count memory and storage in GB (real-api-facts.md). Units are binary
 * (1 GB = 1024 MB), which is how the panel converts `2048 MB` to `2 GB`.
 */
export function parseSizeGb(value: string | number): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) throw new NormalizeError(`not a size: ${value}`);
    return value;
  }
  const match = /^\s*(\d+(?:[.,]\d+)*)\s*([A-Za-z]*)\s*$/.exec(value);
  if (!match) throw new NormalizeError(`not a size: ${JSON.stringify(value)}`);
  const unit = match[2]!.toLowerCase();
  const factor = unit === "" ? 1 : SIZE_UNITS_IN_GB[unit];
  if (factor === undefined) throw new NormalizeError(`unknown size unit in ${JSON.stringify(value)}`);
  const amount = sizeAmount(match[1]!, factor < 1, value);
  return unit === "" ? amount : roundGb(amount * factor);
}

/**
 * The number of a size, where `.` and `,` may each be a decimal point ("1.17 GB", "1,5 GB") or a thousands
 * separator (Indonesian and English locales: "1.024 MB", "1,024 MB"). Read as a decimal, "1,024 MB" was 0.001 GB:
 * drift, and a resize planned to the size the VM has (audit). Two separators, or the same one twice, group
 * thousands; one separator before exactly three digits (and after 1-3 digits that do not start with 0) groups
 * thousands in units below a GB, where sizes are whole numbers; in GB it could be either, so it is refused
 * rather than guessed (a wrong number is worse than a failed read that names the value).
 */
function sizeAmount(text: string, belowGb: boolean, raw: string): number {
  const separators = text.replace(/\d/g, "");
  if (separators === "") return Number(text);
  if (separators.length === 1) {
    const grouped = /^[1-9]\d{0,2}[.,]\d{3}$/.test(text);
    if (!grouped) return Number(text.replace(",", "."));
    if (belowGb) return Number(text.replace(/[.,]/, ""));
    throw new NormalizeError(`ambiguous size ${JSON.stringify(raw)}: a decimal point or a thousands separator`);
  }
  // several: the last one is the decimal point when it differs from the others ("1.024,5"), else all group
  const last = separators[separators.length - 1]!;
  const grouping = separators.slice(0, -1);
  if (/^(.)\1*$/.test(grouping) && grouping[0] !== last) {
    const [whole, fraction] = [text.slice(0, text.lastIndexOf(last)), text.slice(text.lastIndexOf(last) + 1)];
    if (!/^[1-9]\d{0,2}([.,]\d{3})*$/.test(whole)) throw new NormalizeError(`not a size: ${JSON.stringify(raw)}`);
    return Number(`${whole.replace(/[.,]/g, "")}.${fraction}`);
  }
  if (/^(.)\1*$/.test(separators) && /^[1-9]\d{0,2}([.,]\d{3})+$/.test(text)) return Number(text.replace(/[.,]/g, ""));
  throw new NormalizeError(`not a size: ${JSON.stringify(raw)}`);
}

/** A CPU count as an integer, from `2`, `"2"`, `"2 CPU"`, `"2 vCPU"` or `"2 Core"`. */
export function parseCpu(value: string | number): number {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0) throw new NormalizeError(`not a CPU count: ${value}`);
    return value;
  }
  const match = /^\s*(\d+)\s*(?:v?cpus?|cores?)?\s*$/i.exec(value);
  if (!match) throw new NormalizeError(`not a CPU count: ${JSON.stringify(value)}`);
  return Number(match[1]);
}

// English month names are what the samples show; Indonesian ones are accepted too because the panel
// localises dates and one host may answer in Bahasa.
const MONTHS: Record<string, number> = {
  january: 1, february: 2, march: 3, april: 4, may: 5, june: 6, july: 7, august: 8, september: 9,
  october: 10, november: 11, december: 12,
  jan: 1, feb: 2, mar: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
  januari: 1, februari: 2, maret: 3, mei: 5, juni: 6, juli: 7, agustus: 8, oktober: 10, desember: 12,
  agu: 8, agt: 8, okt: 10, des: 12,
};

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

function checkedDate(year: number, month: number, day: number, raw: string): void {
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    throw new NormalizeError(`not a calendar date: ${JSON.stringify(raw)}`);
  }
}

/** Wall-clock time in the service's zone (UTC+7), or at `offsetMinutes` from UTC when the text says so -> ISO 8601 UTC. */
function serviceLocalToIso(
  raw: string, year: number, month: number, day: number, hour: number, minute: number, second: number,
  offsetMinutes = SERVICE_UTC_OFFSET_HOURS * 60,
): string {
  checkedDate(year, month, day, raw);
  if (hour > 23 || minute > 59 || second > 59) throw new NormalizeError(`not a time of day: ${JSON.stringify(raw)}`);
  const ms = Date.UTC(year, month - 1, day, hour, minute - offsetMinutes, second);
  return new Date(ms).toISOString();
}

/** Indonesia's zone names (no daylight saving) and UTC's, as offsets from UTC in minutes. */
const ZONE_NAMES: Record<string, number> = { wib: 7 * 60, wita: 8 * 60, wit: 9 * 60, utc: 0, gmt: 0, z: 0 };

/**
 * A zone written after the time of a text timestamp: ` WIB` (WITA, WIT), ` UTC`, ` GMT`, `Z`, `+07:00`, `+0700`,
 * `+07`, ` GMT+7`, ` UTC+07:00`, or one of them in parentheses. Splits it off: the text before it and the offset in
 * minutes; undefined when the text ends in no zone (or in a word that is not one: refused by the caller, not guessed).
 */
function splitZone(raw: string): { text: string; offsetMinutes: number } | undefined {
  const m = /^(.*?\d[:.]\d{2}(?::\d{2}(?:\.\d+)?)?)\s*\(?\s*(?:([A-Za-z]{1,4})\s*)?(?:([+-])(\d{1,2})(?::?(\d{2}))?)?\s*\)?$/.exec(raw);
  if (!m || (m[2] === undefined && m[3] === undefined)) return undefined;
  let offset = 0;
  if (m[2] !== undefined) {
    const named = ZONE_NAMES[m[2].toLowerCase()];
    if (named === undefined) return undefined;
    // a name with an offset after it counts from UTC ("GMT+7", "UTC+07:00"); WIB+7 means nothing
    if (m[3] !== undefined && named !== 0) return undefined;
    offset = named;
  }
  if (m[3] !== undefined) {
    const [hours, minutes] = [Number(m[4]), Number(m[5] ?? 0)];
    if (hours > 14 || minutes > 59) return undefined;
    offset = (m[3] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  return { text: m[1]!, offsetMinutes: offset };
}

function monthNumber(name: string, raw: string): number {
  const month = MONTHS[name.toLowerCase()];
  if (month === undefined) throw new NormalizeError(`unknown month in ${JSON.stringify(raw)}`);
  return month;
}

/**
 * A date-only value as `YYYY-MM-DD`, from `"26/08/2024"`, `"26-08-2024"` or `"2024-08-26"`.
 * Day-first is the service's convention (it never shows month-first dates).
 */
export function parseDateOnly(value: string): string {
  const raw = value.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(raw);
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    checkedDate(year, month, day, value);
    return `${year}-${pad(month)}-${pad(day)}`;
  }
  m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(raw);
  if (m) {
    const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
    checkedDate(year, month, day, value);
    return `${year}-${pad(month)}-${pad(day)}`;
  }
  throw new NormalizeError(`not a date: ${JSON.stringify(value)}`);
}

/**
 * A timestamp as ISO 8601 in UTC (`2024-01-25T07:43:00.000Z`), from every form the service uses:
 * - `"2023-01-27T02:42:31.000000Z"` (ISO, any fraction length, `Z` or an offset: taken as given);
 * - `"25 January 2024, 14:43"` and `"25 January 2024 14:37"` (instance list, vswitches, snapshots, backups);
 * - `"26-08-2024 10:00:00"` (instance detail);
 * - `"2023-10-25 16:38"` or with seconds (monitoring points);
 * zone-less text forms are Asia/Jakarta wall-clock time (UTC+7, see {@link SERVICE_UTC_OFFSET_HOURS});
 * a text form followed by a zone (`14:43 WIB`, `10:00:00+07:00`, `16:38 GMT+7`, `14:43 UTC`) is read in that zone.
 * A date-only value (`"26/08/2024"`, `"2024-08-26"`) has no time to convert, so it is returned as the ISO
 * date `"2024-08-26"` rather than an invented midnight.
 */
export function parseTimestamp(value: string): string {
  const raw = value.trim();
  // ISO 8601 with a zone: the only form that says its own zone.
  let m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(raw);
  if (m) {
    const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m![i]));
    const second = Number(m[6] ?? 0);
    const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
    checkedDate(year!, month!, day!, value);
    let offsetMinutes = 0;
    const zone = m[8]!;
    if (zone.toUpperCase() !== "Z") {
      const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
      offsetMinutes = (z[1] === "-" ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
    }
    const ms = Date.UTC(year!, month! - 1, day!, hour!, minute! - offsetMinutes, second, millis);
    return new Date(ms).toISOString();
  }
  const local = localTextToIso(value, raw, SERVICE_UTC_OFFSET_HOURS * 60);
  if (local !== undefined) return local;
  // A text form with its zone after the time (real-api-facts audit): "25 January 2024, 14:43 WIB", "26-08-2024
  // 10:00:00+07:00", "2023-10-25 16:38 GMT+7", "… UTC". The zone the text names wins over the service's.
  const zoned = splitZone(raw);
  if (zoned) {
    const iso = localTextToIso(value, zoned.text, zoned.offsetMinutes);
    if (iso !== undefined) return iso;
  }
  // Month name, date only: "25 January 2024".
  m = /^(\d{1,2})\s+([A-Za-z]+)\.?\s+(\d{4})$/.exec(raw);
  if (m) {
    const [day, month, year] = [+m[1]!, monthNumber(m[2]!, value), +m[3]!];
    checkedDate(year, month, day, value);
    return `${year}-${pad(month)}-${pad(day)}`;
  }
  try {
    return parseDateOnly(raw);
  } catch {
    throw new NormalizeError(`not a timestamp in any known format: ${JSON.stringify(value)}`);
  }
}

/** The zone-less text forms with a time, read at `offsetMinutes` from UTC; undefined for any other text. */
function localTextToIso(value: string, raw: string, offsetMinutes: number): string | undefined {
  // ISO-like without a zone: "2023-10-25 16:38", "2023-10-25 16:38:05", "2023-10-25T16:38:05" (a fraction is dropped).
  let m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(raw);
  if (m) {
    return serviceLocalToIso(value, +m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, Number(m[6] ?? 0), offsetMinutes);
  }
  // Day-first numeric: "26-08-2024 10:00:00", "26/08/2024 10:00".
  m = /^(\d{1,2})[-/](\d{1,2})[-/](\d{4})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(raw);
  if (m) {
    return serviceLocalToIso(value, +m[3]!, +m[2]!, +m[1]!, +m[4]!, +m[5]!, Number(m[6] ?? 0), offsetMinutes);
  }
  // Month name: "25 January 2024, 14:43", "25 January 2024 14:37", "25 Jan 2024 14:37:10".
  m = /^(\d{1,2})\s+([A-Za-z]+)\.?\s+(\d{4}),?\s+(\d{1,2})[:.](\d{2})(?::(\d{2}))?$/.exec(raw);
  if (m) {
    return serviceLocalToIso(value, +m[3]!, monthNumber(m[2]!, value), +m[1]!, +m[4]!, +m[5]!, Number(m[6] ?? 0), offsetMinutes);
  }
  return undefined;
}

/**
 * An amount of rupiah as a number, from the panel's money text: `"Rp10.000,00"` (dot thousands, comma
 * decimals), `"Rp 1.500.000"`, `"-Rp5.000,50"`, `"Rp-5.000"`, or a number (passed through).
 */
export function parseRupiah(value: string | number): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new NormalizeError(`not an amount: ${value}`);
    return value;
  }
  const m = /^\s*([+-]?)\s*(?:Rp\.?)?\s*([+-]?)\s*(\d{1,3}(?:\.\d{3})*|\d+)(?:,(\d+))?\s*$/i.exec(value);
  if (!m) throw new NormalizeError(`not a rupiah amount: ${JSON.stringify(value)}`);
  const negative = m[1] === "-" || m[2] === "-";
  const whole = Number(m[3]!.replace(/\./g, ""));
  const fraction = m[4] ? Number(`0.${m[4]}`) : 0;
  const amount = whole + fraction;
  return negative ? -amount : amount;
}

/**
 * Status words that mean an operation is under way on an instance (the create response's `creating`, and the other
 * forms hosts of this kind show while they create, power, resize, reinstall, restore or delete a VM). Matched case-
 * and separator-insensitively ("Shutting_Down", "rolling-back").
 */
const OPERATION_STATUSES = new Set([
  "creating", "cloning", "provisioning", "building", "installing", "reinstalling", "rebuilding", "deploying",
  "starting", "booting", "powering on", "stopping", "shutting down", "powering off", "restarting", "rebooting",
  "resizing", "upgrading", "downgrading", "scaling", "migrating", "suspending", "resuming",
  "deleting", "destroying", "terminating", "removing",
  "rollingback", "rolling back", "restoring", "reverting", "snapshotting", "backing up",
  "processing", "queued", "in progress", "on progress",
]);
// (not "pending": panels of this kind show a VM at rest so, an order awaiting payment or activation: read as an
// operation, every write and every delete of it waited until its deadline, and it could not be destroyed)

// The same in Bahasa Indonesia (the hosts are Indonesian; their panels speak it): verbs of doing (`me-`), and anything
// "sedang …" ("in the middle of …": "Sedang dibuat", being created) or "dalam proses" (in process). (real-api-facts audit:
// a host writing "Sedang dibuat" with operation_flag 0 had its create recorded as done while it was being made.)
const OPERATION_STATUSES_ID = new Set([
  "membuat", "memproses", "diproses", "menginstal", "menginstal ulang", "memasang", "menyalakan", "memulai", "memulai ulang",
  "mematikan", "menghentikan", "mengubah ukuran", "menghapus", "memulihkan", "mengkloning", "menunggu proses", "dalam proses",
]);

/** A status word as compared: lower case, separators as one space ("Shutting_Down" -> "shutting down"). */
export function statusKey(status: string): string {
  return status.trim().toLowerCase().replace(/[\s_-]+/g, " ");
}

/** Whether an instance status word says an operation is under way ({@link OPERATION_STATUSES}). */
export function statusShowsOperation(status: string): boolean {
  const key = statusKey(status);
  return OPERATION_STATUSES.has(key) || OPERATION_STATUSES_ID.has(key) || ((key.startsWith("sedang ") || key.startsWith("dalam proses ")) && !RUNNING_WORDS.has(key));
}

/**
 * The instance status words whose meaning is certain, by what they mean: a VM that runs, one that is off, one whose
 * last operation failed. English as the samples show it (`Running`, `Stopped`, `Error`) and the panels' Indonesian
 * (`Berjalan`/`Aktif`/`Menyala`, `Mati`/`Berhenti`/`Dimatikan`, `Gagal`). Any case. A word in none of them (nor an
 * operation: {@link statusShowsOperation}) is unknown: never taken as a VM that is fine (real-api-facts audit).
 */
// ("sedang berjalan", "running right now", is a VM that runs, not an operation under way as other "sedang …" words are:
// read as an operation it would hold every write and delete until its deadline, the harm "pending" once did; review)
const RUNNING_WORDS = new Set(["running", "active", "on", "berjalan", "sedang berjalan", "aktif", "menyala", "hidup"]);
const STOPPED_WORDS = new Set(["stopped", "shutoff", "off", "stop", "mati", "berhenti", "dimatikan"]);
const FAILURE_WORDS = new Set(["error", "failed", "failure", "gagal", "galat", "kesalahan"]);

/** What an instance status word means, when that is certain (see {@link RUNNING_WORDS}); undefined otherwise. */
export function statusMeaning(status: string): "running" | "stopped" | "failed" | "operation" | undefined {
  const key = statusKey(status);
  if (RUNNING_WORDS.has(key)) return "running";
  if (STOPPED_WORDS.has(key)) return "stopped";
  if (FAILURE_WORDS.has(key)) return "failed";
  if (statusShowsOperation(status)) return "operation";
  return undefined;
}

/**
 * The instance's `operation_flag` as the provider reads it: the host's value, or 1 when the host says 0 (or nothing)
 * while the status word says an operation runs. real-api-facts.md: the samples only ever show 0, so a host that never
 * sets the flag is possible; read as idle, a create still `creating` was recorded as done (and one that then failed
 * was never reported), and every write after it was refused as busy until the operation ended (facts audit).
 */
export function operationFlagOf(flag: number, status: string): number {
  return flag !== 0 ? flag : statusShowsOperation(status) ? 1 : 0;
}

/** The service writes a literal `-` where a value is absent (no public address, no rdns): that is `null`. */
export function placeholderToNull<T>(value: T | "-" | null | undefined): T | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" && value.trim() === "-") return null;
  return value as T;
}

/** A location as `{ id, name }`; list endpoints give only the name (a string), details give `{id, name}`. */
export interface NormalizedLocation {
  /** Integer location id, or null where the endpoint only names the location. */
  id: number | null;
  /** Location name as the panel shows it. */
  name: string;
}

/** Normalizes a location given as a name string or an `{id, name}` object. */
export function normalizeLocation(value: string | { id?: number | string | null; name: string }): NormalizedLocation {
  if (typeof value === "string") return { id: null, name: value };
  const id = value.id === undefined || value.id === null || value.id === "" ? null : Number(value.id);
  if (id !== null && !Number.isInteger(id)) throw new NormalizeError(`not a location id: ${JSON.stringify(value.id)}`);
  return { id, name: value.name };
}
