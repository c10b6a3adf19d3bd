/**
 * Durations as users write them in `timeouts` inputs and config: "90s", "20m", "1h30m", "1.5h", or a bare
 * number of seconds (config only: `timeouts` inputs require a unit, see {@link isBareDuration}). Terraform users
 * know this format; Pulumi's `customTimeouts` uses it too.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_RE = /^(?:(\d+(?:\.\d+)?)(ms|h|m|s))+$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;

/** Parses a duration string into milliseconds; returns undefined when the text is not a duration. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === "number") return Number.isFinite(text) && text >= 0 ? text * 1000 : undefined;
  const t = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(t)) return Number(t) * 1000;
  if (!DURATION_RE.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(PART_RE)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms;
}

const BARE_NUMBER_RE = /^\s*\d+(?:\.\d+)?\s*$/;

/** Whether a `timeouts` value is a number without a unit ("30"), which `timeouts` refuses. */
export function isBareDuration(text: string): boolean {
  return BARE_NUMBER_RE.test(text);
}

/** The message for a `timeouts` value without a unit: says both readings, so the fix is one edit. */
export function bareDurationMessage(what: string, text: string): string {
  const n = text.trim();
  return `${what} "${n}" has no unit: write "${n}s" for seconds or "${n}m" for minutes`;
}

/**
 * The longest wait a duration input may ask for: 7 days, beyond any operation of a host. (Node's timers hold at
 * most 2^31-1 ms, about 24.8 days: a longer one fires at once, so "1000h" made every wait give up immediately.)
 */
export const MAX_WAIT_MS = 7 * 24 * 3_600_000;

/** The limits of a wait duration, for messages. */
export const WAIT_LIMITS_TEXT = "between 1ms and 168h (7 days)";

/** A duration for a wait or deadline, in ms: at least 1 ms and at most {@link MAX_WAIT_MS}; undefined otherwise. */
export function parseWaitDuration(text: string | number): number | undefined {
  const ms = parseDuration(text);
  return ms !== undefined && ms >= 1 && ms <= MAX_WAIT_MS ? ms : undefined;
}

/** Formats milliseconds for messages: "1m30s", "450ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  // (total >= 1 here, so when s is 0, h or m is set: the text is never empty)
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}`;
}
