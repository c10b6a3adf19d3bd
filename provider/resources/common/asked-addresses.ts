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
 * own request asked for. Once the add answered, the note names the address it gave (`ip_address`: the answer has no
 * uuid), and counts for that address only: the user's address put on the VM in the panel after the kill is never
 * taken for it (audit). Killed before the answer came, or on a host whose detail names no IP beside the address's uuid,
 * the note counts for the address the VM holds: a panel swap in that moment's wake is the one case it cannot tell. Notes live in the provider's directory (`VMHOST_CACHE_DIR`, as for learned durations:
 * wait/durations.ts), one small file per VM and asker, so concurrent provider processes never overwrite each other's.
 * It is best effort by nature: a run on another machine (a fresh CI runner), a cleared cache or `VMHOST_CACHE_DIR=off`
 * (notes then live in memory, for this process only) leaves the earlier rule (not ours, kept reserved, said in the log).
 * A note older than {@link NOTE_LIFETIME_MS} is ignored: the next run after an interruption comes soon, and an old
 * note must not make an address put on the VM much later ours.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { cacheDirectory } from "../../wait/durations";
import { ResourceInitError } from "./errors";

/** Which resource asked: each takes only the address it asked for itself. */
export type AddressAsker = "Instance" | "PublicIp";

/** How long a note counts: a day (see the module comment). */
export const NOTE_LIFETIME_MS = 24 * 60 * 60 * 1000;

const noteSchema = z.object({ askedAt: z.number().finite(), ipAddress: z.string().optional(), address: z.string().optional() });
type StoredNote = z.infer<typeof noteSchema>;

/**
 * What a note says about a VM's address: an add was asked for (`ipAddress`: the address its answer named, when it
 * came; without it, whatever address the VM holds), or `address`, the uuid of the address a PublicIp removed from the
 * program left on the VM for its Instance ({@link AskedAddresses.handOver}).
 */
export interface AddressNote {
  ipAddress?: string;
  address?: string;
}

/**
 * True when the address a VM holds (`held`: the detail's `public_ip`, null for none) is the one `note` speaks of. A
 * detail that names no IP beside the address's uuid (a host's empty column: real-api-facts.md) gives the answered IP
 * nothing to be compared with: the note then counts for the address the VM holds, as before the answer came (soak
 * stop22c-71: such a host's re-run after an add killed once answered refused the address its own request made, the
 * user adopted it as advised, and destroy left it reserved in the account, billing, in no state).
 */
export function noteNames(note: AddressNote, held: { ip_id: string | null; ip_address: string | null } | null): boolean {
  if (!held?.ip_id) return false;
  if (note.address !== undefined) return note.address === held.ip_id.toLowerCase();
  return note.ipAddress === undefined || !held.ip_address || note.ipAddress === held.ip_address;
}

/** Instance uuids as the API gives them: the only names a note's file may have. */
const SAFE_ID = /^[0-9a-z-]{1,64}$/;

/** A note's key: its kind and the VM. A hand-over is kept apart from an add, so neither overwrites the other. */
type NoteKind = AddressAsker | "Handover";

/** The notes of one host (base URL). */
export class AskedAddresses {
  private readonly memory = new Map<string, StoredNote>();

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
   * The add's answer named the address (`ip_address`; it carries no uuid): from now on the note counts only for it, so
   * an address put on the VM in the panel after a run killed later than this is never taken for it (audit).
   */
  answered(instanceId: string, by: AddressAsker, ipAddress: string): void {
    const key = keyOf(instanceId, by);
    const note = this.read(key);
    if (note) this.write(key, { ...note, ipAddress });
  }

  /**
   * Notes that `address`, which the API made for a PublicIp of this stack, stays on VM `instanceId` for its Instance,
   * which now manages the VM's address: the Instance's next create, update or delete takes it as its own (its state,
   * written earlier in the up, could not). Names the address, so it never counts for another one: it lasts until used.
   */
  handOver(instanceId: string, address: string): void {
    this.write(keyOf(instanceId, "Handover"), { askedAt: this.now(), address: address.toLowerCase() });
  }

  private write(key: string, note: StoredNote): void {
    this.memory.set(key, note);
    const file = this.fileOf(key);
    if (!file) return;
    try {
      mkdirSync(this.directory!, { recursive: true });
      // Write then rename: a provider process reading at the same moment never sees half a note.
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(note));
      renameSync(temporary, file);
    } catch {
      // a read-only home or a full disk: the note stays in memory (this process)
    }
  }

  private read(key: string): StoredNote | undefined {
    const kept = this.memory.get(key);
    const file = this.fileOf(key);
    if (kept !== undefined || !file) return kept;
    try {
      const parsed = noteSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined; // no note (the usual case), or an unreadable one: nothing asked
    }
  }

  /**
   * The note of `by` on `instanceId` (written in this process or an earlier one) while it counts: for an Instance, a
   * hand-over (until used) before an add; an add no run recorded counts for {@link NOTE_LIFETIME_MS}.
   */
  noteOf(instanceId: string, by: AddressAsker): AddressNote | undefined {
    const handover = by === "Instance" ? this.read(keyOf(instanceId, "Handover")) : undefined;
    if (handover?.address !== undefined) return { address: handover.address };
    const note = this.read(keyOf(instanceId, by));
    if (note === undefined) return undefined;
    // A note "from the future" (another process's clock) counts as fresh.
    if (!(this.now() - note.askedAt < NOTE_LIFETIME_MS)) return undefined;
    return note.ipAddress === undefined ? {} : { ipAddress: note.ipAddress };
  }

  /** Drops the notes of `by` on the VM (an Instance's hand-over too): the engine now holds what the run saw of its address. */
  forget(instanceId: string, by: AddressAsker): void {
    for (const key of by === "Instance" ? [keyOf(instanceId, by), keyOf(instanceId, "Handover")] : [keyOf(instanceId, by)]) {
      this.memory.delete(key);
      const file = this.fileOf(key);
      if (!file) continue;
      try {
        rmSync(file, { force: true });
      } catch {
        // stays until it is too old to count
      }
    }
  }
}

function keyOf(instanceId: string, kind: NoteKind): string {
  return `${kind}-${instanceId.toLowerCase()}`;
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
