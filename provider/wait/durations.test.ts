import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { cacheDirectory, DurationStore, durationsFor, forgetDurations } from "./durations";

describe("operation durations kept across runs", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "vmhost-durations-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a fresh process (a new store on the same file) knows what an earlier one learned, delete included", () => {
    const file = join(dir, "host.json");
    const first = new DurationStore(file);
    first.learn("create", 60_000);
    first.learn("delete", 20_000);
    const fresh = new DurationStore(file);
    expect(fresh.expected("create")).toBe(60_000);
    expect(fresh.expected("delete")).toBe(20_000);
    expect(fresh.expected("resize")).toBeUndefined();
  });

  it("the usual duration is the lower median of the recent samples (one outlier does not take over)", () => {
    const store = new DurationStore(join(dir, "host.json"));
    store.learn("resize", 10_000);
    store.learn("resize", 20_000);
    expect(store.expected("resize")).toBe(10_000); // of two, the shorter: too long costs lateness, too short only reads
    store.learn("resize", 300_000); // a stuck operation finished in the panel
    expect(store.expected("resize")).toBe(20_000);
    for (const ms of [12_000, 11_000, 10_500, 10_000]) store.learn("resize", ms);
    expect(store.expected("resize")).toBe(11_000); // the 5 most recent: 300 s, then four near 10 s
    expect(JSON.parse(readFileSync(join(dir, "host.json"), "utf8")).kinds.resize).toMatchObject({ ms: 11_000, samples: 7, recent: [300_000, 12_000, 11_000, 10_500, 10_000] });
  });

  it("a wait that saw the operation end well before the usual duration forgets the kind; a file of an older version is read", () => {
    const file = join(dir, "host.json");
    writeFileSync(file, JSON.stringify({ version: 1, kinds: { create: { ms: 20_000, samples: 40, early: 1 }, resize: { ms: 20_000, samples: 3 } } }));
    const store = new DurationStore(file);
    expect(store.expected("create")).toBe(20_000);
    store.learn("create", 9_000, true);
    expect(store.expected("create")).toBeUndefined();
    expect(new DurationStore(file).expected("create")).toBeUndefined();
    // an older file's usual duration counts as one recent sample
    store.learn("resize", 2_000);
    expect(store.expected("resize")).toBe(2_000);
  });

  it("ignores a duration that cannot be one (zero, negative, not finite), and counts the samples it averages", () => {
    const file = join(dir, "host.json");
    const store = new DurationStore(file);
    for (const junk of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) store.learn("create", junk);
    expect(store.expected("create")).toBeUndefined();
    store.learn("create", 10_000);
    store.learn("create", 10_000);
    store.learn("create", 10_000);
    expect(JSON.parse(readFileSync(file, "utf8")).kinds.create.samples).toBe(3);
  });

  it("a corrupt file is harmless: nothing known, and the next write replaces it", () => {
    const file = join(dir, "host.json");
    for (const junk of ["{not json", JSON.stringify({ version: 9, kinds: [] }), JSON.stringify({ version: 1, kinds: { create: { ms: -5, samples: 1 } } })]) {
      writeFileSync(file, junk);
      const store = new DurationStore(file);
      expect(store.expected("create")).toBeUndefined();
      store.learn("create", 30_000);
      expect(new DurationStore(file).expected("create")).toBe(30_000);
    }
  });

  it("a missing or unwritable cache directory is harmless: learning stays in memory", () => {
    const blocked = join(dir, "blocked");
    mkdirSync(blocked);
    chmodSync(blocked, 0o500);
    const store = new DurationStore(join(blocked, "sub", "host.json"));
    expect(store.expected("create")).toBeUndefined();
    expect(() => store.learn("create", 5_000)).not.toThrow();
    expect(store.expected("create")).toBe(5_000);
    chmodSync(blocked, 0o700);
  });

  it("one file per host under the user's cache directory, named without the API key; off keeps it in memory", () => {
    forgetDurations();
    const env = { VMHOST_CACHE_DIR: dir };
    durationsFor("https://api.one.test/v1", env).learn("create", 1_000);
    durationsFor("https://api.two.test/v1", env).learn("create", 2_000);
    forgetDurations();
    expect(durationsFor("https://api.one.test/v1", env).expected("create")).toBe(1_000);
    expect(durationsFor("https://api.two.test/v1", env).expected("create")).toBe(2_000);
    expect(cacheDirectory({ VMHOST_CACHE_DIR: "off" })).toBeUndefined();
    expect(cacheDirectory({ XDG_CACHE_HOME: "/c" }, "linux")).toBe("/c/pulumi-vmhost");
    // values pasted with spaces around them still name the directory
    expect(cacheDirectory({ XDG_CACHE_HOME: " /c ", VMHOST_CACHE_DIR: "  " }, "linux")).toBe("/c/pulumi-vmhost");
    expect(cacheDirectory({ VMHOST_CACHE_DIR: " /d " }, "linux")).toBe("/d");
    expect(cacheDirectory({ LOCALAPPDATA: "/w" }, "win32")).toBe("/w/pulumi-vmhost");
    const contents = readFileSync(join(dir, readdirSync(dir)[0]!), "utf8");
    expect(JSON.parse(contents)).toMatchObject({ version: 1, kinds: { create: { samples: 1 } } });
    // a trailing slash names the same host; the file name is short and stable
    expect(durationsFor("https://api.one.test/v1/", env).expected("create")).toBe(1_000);
    expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/^durations-[0-9a-f]{16}\.json$/), expect.stringMatching(/^durations-[0-9a-f]{16}\.json$/)]);
  });

  it("in memory (cache off): one store per host for the process, forgotten by forgetDurations", () => {
    forgetDurations();
    const off = { VMHOST_CACHE_DIR: "off" };
    durationsFor("https://api.mem.test/v1", off).learn("create", 4_000);
    expect(durationsFor("https://api.mem.test/v1", off).expected("create")).toBe(4_000);
    expect(durationsFor("https://api.mem.test/v1", { VMHOST_CACHE_DIR: dir }).expected("create")).toBeUndefined();
    forgetDurations();
    expect(durationsFor("https://api.mem.test/v1", off).expected("create")).toBeUndefined();
  });

  it("the default cache directory per platform; a blank XDG_CACHE_HOME is not a directory", () => {
    expect(cacheDirectory({}, "linux")).toBe(join(homedir(), ".cache", "pulumi-vmhost"));
    expect(cacheDirectory({ XDG_CACHE_HOME: "   " }, "linux")).toBe(join(homedir(), ".cache", "pulumi-vmhost"));
    expect(cacheDirectory({}, "darwin")).toBe(join(homedir(), "Library", "Caches", "pulumi-vmhost"));
    expect(cacheDirectory({ LOCALAPPDATA: "/w" }, "linux")).toBe(join(homedir(), ".cache", "pulumi-vmhost"));
    expect(cacheDirectory({}, "win32")).toBe(join(homedir(), ".cache", "pulumi-vmhost"));
  });

  it("two cache directories keep apart what they learned about the same host; trailing slashes name the same host", () => {
    forgetDurations();
    const other = mkdtempSync(join(tmpdir(), "vmhost-durations-"));
    try {
      durationsFor("https://api.apart.test/v1", { VMHOST_CACHE_DIR: dir }).learn("create", 3_000);
      expect(durationsFor("https://api.apart.test/v1", { VMHOST_CACHE_DIR: other }).expected("create")).toBeUndefined();
      forgetDurations();
      expect(durationsFor("https://api.apart.test/v1//", { VMHOST_CACHE_DIR: dir }).expected("create")).toBe(3_000);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
