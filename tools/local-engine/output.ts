/**
 * Pulumi-like console output: one line per resource step, diagnostics, stack outputs, a summary.
 * Everything goes through one {@link Printer} so the programmatic API can return the same text the CLI shows.
 */
import { PropertyValue, UNKNOWN_VALUE, isSecret, type KeyDiff } from "./values";

/** The kinds of step the engine performs and reports. */
export type StepOp = "create" | "update" | "replace" | "delete" | "same";

/** Counts of steps by kind. */
export type Summary = Record<StepOp, number>;

/** Collects output lines and forwards each one as it is produced. */
export class Printer {
  private readonly lines: string[] = [];

  constructor(private readonly sink?: (line: string) => void) {}

  /** Emits one line (may contain newlines: each becomes its own line). */
  line(text = ""): void {
    for (const l of text.split("\n")) {
      this.lines.push(l);
      this.sink?.(l);
    }
  }

  /** Everything printed so far. */
  text(): string {
    return this.lines.join("\n") + (this.lines.length ? "\n" : "");
  }
}

const SYMBOLS: Record<StepOp, string> = { create: "+ ", update: "~ ", replace: "+-", delete: "- ", same: "  " };
const PAST: Record<StepOp, string> = { create: "created", update: "updated", replace: "replaced", delete: "deleted", same: "unchanged" };

const PROGRESS: Record<StepOp, string> = { create: "creating", update: "updating", replace: "replacing", delete: "deleting", same: "" };

/** The line printed when a step starts (up, refresh, destroy), e.g. ` +   vmhost:Instance  web  creating...`. */
export function progressLine(op: StepOp, type: string, name: string): string {
  return ` ${SYMBOLS[op]}  ${type}  ${name}  ${PROGRESS[op]}...`;
}

/** " (3s)": how long a step took, for completion lines. */
export function elapsed(started: number): string {
  return `(${Math.round((Date.now() - started) / 1000)}s)`;
}

/** One step line, e.g. ` ~  vmhost:Instance  web  update [diff: ~hostname]`. */
export function stepLine(op: StepOp, type: string, name: string, dryRun: boolean, detail = ""): string {
  const verb = dryRun ? op : PAST[op];
  return ` ${SYMBOLS[op]}  ${type}  ${name}  ${verb}${detail ? " " + detail : ""}`;
}

/**
 * `[diff: +a-b~c,d]`, the way Pulumi lists changed properties (pkg/backend/display/rows.go writeShortDiff /
 * writePropertyKeys: adds, deletes, then updates, each group's sign once and its keys sorted, joined by ",").
 * A plain list is shown as updates; no key, no label (an update whose inputs did not change shows none).
 */
export function diffDetail(keys: string[] | KeyDiff): string {
  const d = Array.isArray(keys) ? { adds: [], deletes: [], updates: keys } : keys;
  const group = (sign: string, ks: string[]) => (ks.length ? sign + [...ks].sort().join(",") : "");
  const text = group("+", d.adds) + group("-", d.deletes) + group("~", d.updates);
  return text ? `[diff: ${text}]` : "";
}

/** Renders a value for humans: secrets as [secret], unknowns as output<unknown>, long values shortened. */
export function renderValue(v: PropertyValue | undefined, max = 100): string {
  if (v === undefined) return "<absent>";
  if (isSecret(v)) return "[secret]";
  if (v === UNKNOWN_VALUE) return "output<unknown>";
  const text = JSON.stringify(v, (_k, x: unknown) =>
    isSecret(x as PropertyValue) ? "[secret]" : x === UNKNOWN_VALUE ? "output<unknown>" : x,
  );
  return text.length > max ? text.slice(0, max - 3) + "..." : text;
}

/** The summary block, e.g. `Resources:\n    + 2 created\n    3 unchanged`. */
export function summaryBlock(summary: Summary, dryRun: boolean): string {
  const parts: string[] = [];
  const label = (op: StepOp): string => (dryRun ? `to ${op}` : PAST[op]);
  for (const op of ["create", "update", "replace", "delete"] as const) {
    if (summary[op] > 0) parts.push(`    ${SYMBOLS[op].trim()} ${summary[op]} ${label(op)}`);
  }
  if (summary.same > 0) parts.push(`    ${summary.same} unchanged`);
  return ["Resources:", ...(parts.length ? parts : ["    no resources"])].join("\n");
}

/** An empty summary. */
export function emptySummary(): Summary {
  return { create: 0, update: 0, replace: 0, delete: 0, same: 0 };
}
