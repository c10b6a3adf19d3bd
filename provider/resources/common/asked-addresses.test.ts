import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askedAddressesFor, AskedAddresses, droppingNoteOnceRecorded, forgetAskedAddressJournals, NOTE_LIFETIME_MS, noteNames } from "./asked-addresses";
import { ResourceInitError } from "./errors";

const VM = "3f2b8a4e-0c1d-4e5f-9a8b-7c6d5e4f3a2b";
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vmhost-asked-"));
  forgetAskedAddressJournals();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("notes of address adds no run recorded", () => {
  it("a note written by one process is read by the next one, per VM and per asker, until it is dropped", () => {
    const env = { VMHOST_CACHE_DIR: dir };
    askedAddressesFor("https://api.one.test/v1", env).note(VM.toUpperCase(), "Instance");
    forgetAskedAddressJournals(); // the process was killed: a new one starts
    const next = askedAddressesFor("https://api.one.test/v1/", env);
    expect(next.noteOf(VM, "Instance")).toBeDefined();
    expect(next.noteOf(VM, "PublicIp")).toBeUndefined(); // each resource takes only what it asked for
    expect(askedAddressesFor("https://api.two.test/v1", env).noteOf(VM, "Instance")).toBeUndefined(); // another host
    next.forget(VM, "Instance");
    forgetAskedAddressJournals();
    expect(askedAddressesFor("https://api.one.test/v1", env).noteOf(VM, "Instance")).toBeUndefined();
  });

  it("a note older than a day does not count; one from a clock ahead of this one does", () => {
    let now = 1_000_000;
    new AskedAddresses(dir, () => now).note(VM, "PublicIp");
    now += NOTE_LIFETIME_MS - 1;
    expect(new AskedAddresses(dir, () => now).noteOf(VM, "PublicIp")).toBeDefined();
    now += 1;
    expect(new AskedAddresses(dir, () => now).noteOf(VM, "PublicIp")).toBeUndefined();
    expect(new AskedAddresses(dir, () => 0).noteOf(VM, "PublicIp")).toBeDefined();
  });

  it("a corrupt note is no note; an unwritable directory or cache off keeps notes for this process only", () => {
    new AskedAddresses(dir).note(VM, "Instance");
    writeFileSync(join(dir, `Instance-${VM}`), "{not json");
    expect(new AskedAddresses(dir).noteOf(VM, "Instance")).toBeUndefined();

    // a directory that cannot be made (under a file: refused even to root)
    writeFileSync(join(dir, "a-file"), "");
    const unwritable = new AskedAddresses(join(dir, "a-file", "notes"));
    expect(() => unwritable.note(VM, "Instance")).not.toThrow();
    expect(unwritable.noteOf(VM, "Instance")).toBeDefined();
    expect(() => unwritable.forget(VM, "Instance")).not.toThrow();
    expect(unwritable.noteOf(VM, "Instance")).toBeUndefined();

    const off = { VMHOST_CACHE_DIR: "off" };
    askedAddressesFor("https://api.mem.test/v1", off).note(VM, "Instance");
    expect(askedAddressesFor("https://api.mem.test/v1", off).noteOf(VM, "Instance")).toBeDefined();
    forgetAskedAddressJournals();
    expect(askedAddressesFor("https://api.mem.test/v1", off).noteOf(VM, "Instance")).toBeUndefined();
  });

  it("an id that is not a uuid never names a file", () => {
    const journal = new AskedAddresses(dir);
    journal.note("../../etc/x", "Instance");
    expect(readdirSync(dir)).toEqual([]);
    expect(journal.noteOf("../../etc/x", "Instance")).toBeDefined(); // in memory
  });
});

describe("droppingNoteOnceRecorded", () => {
  // (jest runs with VMHOST_CACHE_DIR=off: the journal of this process, as the provider's own calls find it)
  const url = "https://api.drop.test/v1";
  const journal = () => askedAddressesFor(url);
  const run = <T>(operation: () => Promise<T>, vmOf: (o: unknown) => string | undefined) =>
    droppingNoteOnceRecorded(() => url, "Instance", vmOf, operation).catch((e: unknown) => e);

  it("drops the note once the operation handed the engine a result or an init error's outputs, and keeps it after a failure that records nothing", async () => {
    journal().note(VM, "Instance");
    await run(() => Promise.reject(new Error("the API could not be reached")), () => VM);
    expect(journal().noteOf(VM, "Instance")).toBeDefined();
    await run(() => Promise.reject(new ResourceInitError("half done", VM, {})), (o) => (o instanceof ResourceInitError ? o.id : undefined));
    expect(journal().noteOf(VM, "Instance")).toBeUndefined();
    journal().note(VM, "Instance");
    await run(() => Promise.resolve({ id: VM }), (o) => (o as { id: string }).id);
    expect(journal().noteOf(VM, "Instance")).toBeUndefined();
  });
});

describe("a hand-over note (a removed PublicIp left its address to the Instance)", () => {
  it("names its address, counts only for it, and lasts past a day until dropped", () => {
    let now = 0;
    new AskedAddresses(dir, () => now).handOver(VM, "A1B2C3D4-0000-4000-8000-000000000001");
    now = 30 * NOTE_LIFETIME_MS;
    const later = new AskedAddresses(dir, () => now);
    expect(later.noteOf(VM, "Instance")).toEqual({ address: "a1b2c3d4-0000-4000-8000-000000000001" });
    expect(later.noteOf(VM, "PublicIp")).toBeUndefined();
    later.forget(VM, "Instance");
    expect(new AskedAddresses(dir, () => now).noteOf(VM, "Instance")).toBeUndefined();
  });
});

describe("what a note names", () => {
  const held = (ip_id: string, ip_address: string | null) => ({ ip_id, ip_address });

  it("an add's note names the address its answer gave once it came; before, any address the VM holds", () => {
    const journal = new AskedAddresses(dir);
    journal.note(VM, "Instance");
    expect(noteNames(journal.noteOf(VM, "Instance")!, held("u-1", "103.0.0.1"))).toBe(true);
    journal.answered(VM, "Instance", "103.0.0.2");
    const fresh = new AskedAddresses(dir).noteOf(VM, "Instance")!;
    expect(fresh).toEqual({ ipAddress: "103.0.0.2" });
    expect(noteNames(fresh, held("u-2", "103.0.0.2"))).toBe(true);
    expect(noteNames(fresh, held("u-1", "103.0.0.1"))).toBe(false); // yours, put on in the panel: never taken
    expect(noteNames(fresh, null)).toBe(false);
  });

  it("a detail that names no IP beside the uuid (a host's empty column): an answered note counts for the address held", () => {
    expect(noteNames({ ipAddress: "103.0.0.2" }, held("u-2", null))).toBe(true);
    expect(noteNames({ ipAddress: "103.0.0.2" }, held("u-2", ""))).toBe(true);
    expect(noteNames({ ipAddress: "103.0.0.2" }, { ip_id: null, ip_address: null })).toBe(false);
  });

  it("a hand-over is kept apart from an add (neither overwrites the other) and wins; forget drops both", () => {
    const journal = new AskedAddresses(dir);
    journal.note(VM, "Instance");
    journal.handOver(VM, "U-9");
    journal.answered(VM, "Instance", "103.0.0.3");
    expect(new AskedAddresses(dir).noteOf(VM, "Instance")).toEqual({ address: "u-9" });
    expect(noteNames({ address: "u-9" }, held("U-9", "103.0.0.9"))).toBe(true);
    expect(noteNames({ address: "u-9" }, held("u-3", "103.0.0.3"))).toBe(false);
    journal.forget(VM, "Instance");
    expect(new AskedAddresses(dir).noteOf(VM, "Instance")).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });
});
