import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

  it("averages new samples in (one outlier does not take over)", () => {
    const store = new DurationStore(join(dir, "host.json"));
    store.learn("resize", 10_000);
    store.learn("resize", 20_000);
    expect(store.expected("resize")).toBe(13_000);
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
    const contents = readFileSync(join(dir, readdirSync(dir)[0]!), "utf8");
    expect(JSON.parse(contents)).toMatchObject({ version: 1, kinds: { create: { samples: 1 } } });
  });
});
