/**
 * Public addresses this machine asked the API to add (`addPublicIp`) whose outcome a killed run may never have
 * recorded, kept across provider processes.
 *
 * Why: an `up` killed after sending the add (Ctrl-C twice, a cancelled CI job, a lost runner) leaves the engine
 * holding the outputs from before it: no address. The next run finds one on the VM that no state knows, and an address
 * no state knows may be the user's (a reserved address swapped in in the panel), so it was never taken as ours: the
 * Instance's delete left it reserved in the account, billing, in no state (soak sweeps of other seeds: 3 leaks in
 * 1,350 lifecycles, every one this case), and a PublicIp's next create refused it and asked for adoptId. The add
 * answers no uuid, so nothing else can tell the address it made from another.
 *
 * A note written before the request is sent, and dropped once the operation that sent it (or the next one on that VM)
 * has handed the engine what it saw, tells the next run on this machine that the address the VM holds is the one its
 * own request asked for. Notes live in the provider's directory (`VMHOST_CACHE_DIR`, as for learned durations:
 * wait/durations.ts), one small file per VM and asker, so concurrent provider processes never overwrite each other's.
 * It is best effort by nature: a run on another machine (a fresh CI runner), a cleared cache or `VMHOST_CACHE_DIR=off`
 * (notes then live in memory, for this process only) leaves the earlier rule (not ours, kept reserved, said in the log).
 * A note older than {@link NOTE_LIFETIME_MS} is ignored: the next run after an interruption comes soon, and an old
 * note must not make an address put on the VM much later ours.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { cacheDirectory } from "../../wait/durations";
import { ResourceInitError } from "./errors";

/** Which resource asked: each takes only the address it asked for itself. */
export type AddressAsker = "Instance" | "PublicIp";

/** How long a note counts: a day (see the module comment). */
export const NOTE_LIFETIME_MS = 24 * 60 * 60 * 1000;

const noteSchema = z.object({ askedAt: z.number().finite(), address: z.string().optional() });

/**
 * What a note says about a VM's address: an add was asked for (which address it made is not known: the one the VM
 * holds), or `address`, the address a PublicIp removed from the program left on the VM for its Instance ({@link
 * AskedAddresses.handOver}).
 */
export interface AddressNote {
  address?: string;
}

/** Instance uuids as the API gives them: the only names a note's file may have. */
const SAFE_ID = /^[0-9a-z-]{1,64}$/;

/** The notes of one host (base URL). */
export class AskedAddresses {
  private readonly memory = new Map<string, z.infer<typeof noteSchema>>();

  /** `directory` undefined: notes live in memory only. */
  constructor(private readonly directory: string | undefined, private readonly now: () => number = Date.now) {}

  private fileOf(key: string): string | undefined {
    return this.directory && SAFE_ID.test(key.slice(key.indexOf("-") + 1)) ? join(this.directory, key) : undefined;
  }

  /** Notes that `by` is about to ask for an address on `instanceId`. Written before the request is sent. */
  note(instanceId: string, by: AddressAsker): void {
    this.write(keyOf(instanceId, by), { askedAt: this.now() });
  }

  /**
   * Notes that `address`, which the API made for a PublicIp of this stack, stays on VM `instanceId` for its Instance,
   * which now manages the VM's address: the Instance's next create, update or delete takes it as its own (its state,
   * written earlier in the up, could not). Names the address, so it never counts for another one: it lasts until used.
   */
  handOver(instanceId: string, address: string): void {
    this.write(keyOf(instanceId, "Instance"), { askedAt: this.now(), address: address.toLowerCase() });
  }

  private write(key: string, note: z.infer<typeof noteSchema>): void {
    this.memory.set(key, note);
    const file = this.fileOf(key);
    if (!file) return;
    try {
      mkdirSync(this.directory!, { recursive: true });
      writeFileSync(file, JSON.stringify(note));
    } catch {
      // a read-only home or a full disk: the note stays in memory (this process)
    }
  }

  /**
   * The note of `by` on `instanceId` (written in this process or an earlier one) while it counts: an add no run
   * recorded (for {@link NOTE_LIFETIME_MS}), or a hand-over (until used).
   */
  noteOf(instanceId: string, by: AddressAsker): AddressNote | undefined {
    const key = keyOf(instanceId, by);
    let note = this.memory.get(key);
    const file = this.fileOf(key);
    if (note === undefined && file) {
      try {
        const parsed = noteSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
        if (parsed.success) note = parsed.data;
      } catch {
        // no note (the usual case), or an unreadable one: nothing asked
      }
    }
    if (note === undefined) return undefined;
    if (note.address !== undefined) return { address: note.address };
    // A note "from the future" (another process's clock) counts as fresh.
    return this.now() - note.askedAt < NOTE_LIFETIME_MS ? {} : undefined;
  }

  /** True when {@link noteOf} has a note. */
  asked(instanceId: string, by: AddressAsker): boolean {
    return this.noteOf(instanceId, by) !== undefined;
  }

  /** Drops the note: the engine now holds what the run saw of that VM's address. */
  forget(instanceId: string, by: AddressAsker): void {
    const key = keyOf(instanceId, by);
    this.memory.delete(key);
    const file = this.fileOf(key);
    if (!file) return;
    try {
      rmSync(file, { force: true });
    } catch {
      // stays until it is too old to count
    }
  }
}

function keyOf(instanceId: string, by: AddressAsker): string {
  return `${by}-${instanceId.toLowerCase()}`;
}

const journals = new Map<string, AskedAddresses>();

/** The notes of a host (base URL), shared by every resource of this process. */
export function askedAddressesFor(baseUrl: string, env: Readonly<Record<string, string | undefined>> = process.env): AskedAddresses {
  const dir = cacheDirectory(env);
  const host = baseUrl.replace(/\/+$/, "");
  const key = `${dir ?? "(memory)"}|${host}`;
  let journal = journals.get(key);
  if (!journal) {
    const name = `asked-addresses-${createHash("sha256").update(host).digest("hex").slice(0, 16)}`;
    journal = new AskedAddresses(dir ? join(dir, name) : undefined);
    journals.set(key, journal);
  }
  return journal;
}

/**
 * Runs a create, update or delete of `by` on a VM (`vmOf` names it from the operation's result or init error: a
 * create's VM is known only then). Once the operation handed the engine what it saw of the VM's address, a note of an
 * add no run recorded has served: dropped, so that it never makes an address put on the VM later ours. A failure
 * that records nothing keeps it. (Never around a Read: a preview's refresh is not kept.)
 */
export async function droppingNoteOnceRecorded<T>(
  baseUrl: () => string, by: AddressAsker, vmOf: (outcome: T | ResourceInitError) => string | undefined, operation: () => Promise<T>,
): Promise<T> {
  const drop = (vm: string | undefined) => {
    if (vm) askedAddressesFor(baseUrl()).forget(vm, by);
  };
  try {
    const result = await operation();
    drop(vmOf(result));
    return result;
  } catch (e) {
    if (e instanceof ResourceInitError) drop(vmOf(e));
    throw e;
  }
}

/** Forgets every journal of this process (tests: a "fresh process"). Files stay. */
export function forgetAskedAddressJournals(): void {
  journals.clear();
}
