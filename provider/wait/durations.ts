/**
 * How long each kind of instance operation usually takes on a host, kept across provider processes.
 *
 * Why a file: every `pulumi up` starts a new provider process, so durations learned in memory die with it and
 * each run would start blind (the issue measured a 60 s operation noticed 6-8 s late with 25 polls in a fresh
 * process). Hosts differ a lot (a create takes 40 s on one and 4 min on another), so no fixed guess serves all.
 * With the usual duration known, a wait sleeps until shortly before it and then polls every second: about 10
 * status requests for a 60 s operation, noticed within a second. Without it (a clean CI runner), waits poll every
 * second from the start; the shared poller (status-poller.ts) keeps that at about 1 request/s for all waits of the
 * process together.
 *
 * The file is small JSON, one per host (base URL; never the key), under the user's cache directory
 * (`$VMHOST_CACHE_DIR`, else `$XDG_CACHE_HOME/pulumi-vmhost`, `~/Library/Caches/pulumi-vmhost` on macOS,
 * `%LOCALAPPDATA%\pulumi-vmhost` on Windows, `~/.cache/pulumi-vmhost` elsewhere). It is only a hint: a missing,
 * unreadable or corrupt file means "nothing known" and is replaced at the next write; a file that cannot be
 * written leaves learning in memory. `VMHOST_CACHE_DIR=off` keeps everything in memory.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";

const fileSchema = z.object({
  version: z.literal(1),
  kinds: z.record(
    z.string(),
    z.object({
      /** The usual duration: the lower median of `recent` (kept for older versions, which read only this). */
      ms: z.number().positive().finite(),
      samples: z.number().int().positive(),
      /** Written by older versions (how many waits in a row ended early); read, never written. */
      early: z.number().int().nonnegative().optional(),
      /** The last few durations learned, oldest first (absent in files of older versions: then `[ms]`). */
      recent: z.array(z.number().positive().finite()).max(32).optional(),
    }),
  ),
});

type Kinds = z.infer<typeof fileSchema>["kinds"];

/**
 * How many recent durations of a kind are kept; the usual duration is their lower median.
 *
 * Why a median of recent samples and not a moving average: one outlier moved the average a long way (a stuck
 * operation finished in the panel after 5 minutes, or a run with many faults whose polls took long, taught a 2 s kind
 * 20 s or more), and too long is the costly direction: a wait sleeps until shortly before the usual end, so it
 * notices an earlier end only then (fleet audit: 20 s kept for 2 s operations, each later run 13-16 s late per
 * operation, still 2 s late four runs later; kept at 3.4 s, the end read itself confirmed it at every run, so it was
 * never unlearned). A median ignores outliers up to half the samples; the lower one of an even count, as too short
 * only costs status reads (the shared poller's, about 1 a second for the whole process), too long costs lateness.
 */
const RECENT_SAMPLES = 5;

function lowerMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** The cache directory of this user (see the module comment), or undefined when persistence is off. */
export function cacheDirectory(env: Readonly<Record<string, string | undefined>> = process.env, platform = process.platform): string | undefined {
  const explicit = env.VMHOST_CACHE_DIR?.trim();
  if (explicit) return explicit.toLowerCase() === "off" ? undefined : explicit;
  if (env.XDG_CACHE_HOME?.trim()) return join(env.XDG_CACHE_HOME.trim(), "pulumi-vmhost");
  if (platform === "darwin") return join(homedir(), "Library", "Caches", "pulumi-vmhost");
  if (platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "pulumi-vmhost");
  return join(homedir(), ".cache", "pulumi-vmhost");
}

/** The usual durations of one host's operations: in memory, backed by the host's cache file. */
export class DurationStore {
  private kinds: Kinds | undefined;

  constructor(private readonly file: string | undefined) {}

  private load(): Kinds {
    if (this.kinds) return this.kinds;
    this.kinds = {};
    if (!this.file) return this.kinds;
    try {
      const parsed = fileSchema.safeParse(JSON.parse(readFileSync(this.file, "utf8")));
      if (parsed.success) this.kinds = parsed.data.kinds;
    } catch {
      // missing or unreadable: nothing known yet
    }
    return this.kinds;
  }

  /** The usual duration of `kind` in ms, if known (learned in this process or kept from an earlier run). */
  expected(kind: string): number | undefined {
    return this.load()[kind]?.ms;
  }

  /**
   * Records one observed duration of `kind` and keeps it in the file (best effort). `endedEarly`: the wait saw the
   * operation ended before the usual duration with nothing seen in between (wait/instance.ts endedBeforeUsual): the
   * usual duration is proven too long, by an unknown amount (the end lies anywhere since the operation was last
   * seen running, often its start). Then what was known is forgotten, and `ms` too (a guess inside that span): the
   * next wait of the kind polls as on a new host (every shared tick, noticed within about a second, from its start)
   * and learns the duration to within a tick. Averaging or halving towards it instead took one late run per halving
   * (fleet audit: 20 s kept for 2 s operations took four runs, 16 s, 13 s, 5 s and 2 s late). Kinds whose operations
   * vary a lot (a CPU-only resize among disk resizes) then pay one wait polled from its start now and then, not
   * lateness.
   */
  learn(kind: string, ms: number, endedEarly = false): void {
    const kinds = this.load();
    if (endedEarly) {
      if (!kinds[kind]) return;
      delete kinds[kind];
      this.save(kinds);
      return;
    }
    if (!(ms > 0) || !Number.isFinite(ms)) return;
    const previous = kinds[kind];
    const recent = [...(previous ? (previous.recent ?? [previous.ms]) : []), ms].slice(-RECENT_SAMPLES);
    kinds[kind] = { ms: lowerMedian(recent), samples: (previous?.samples ?? 0) + 1, recent };
    this.save(kinds);
  }

  private save(kinds: Kinds): void {
    if (!this.file) return;
    try {
      mkdirSync(join(this.file, ".."), { recursive: true });
      // Write then rename: a concurrent reader (another provider process) never sees half a file.
      const temporary = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify({ version: 1, kinds }, null, 1));
      renameSync(temporary, this.file);
    } catch {
      // a read-only home or a full disk: learning stays in memory
    }
  }
}

const stores = new Map<string, DurationStore>();

/** The duration store of a host (base URL), shared by every wait of this process. */
export function durationsFor(baseUrl: string, env: Readonly<Record<string, string | undefined>> = process.env): DurationStore {
  const dir = cacheDirectory(env);
  const key = `${dir ?? "(memory)"}|${baseUrl}`;
  let store = stores.get(key);
  if (!store) {
    const name = `durations-${createHash("sha256").update(baseUrl.replace(/\/+$/, "")).digest("hex").slice(0, 16)}.json`;
    store = new DurationStore(dir ? join(dir, name) : undefined);
    stores.set(key, store);
  }
  return store;
}

/** Forgets every store of this process (the bench's "fresh process"; tests). Files stay. */
export function forgetDurations(): void {
  stores.clear();
}
