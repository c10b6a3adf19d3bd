/**
 * Conformance of the local engine's configuration and command line with the Pulumi CLI (issue 10, points 10
 * and 13): config through a real run, `--refresh`,
 * `--expect-no-changes` and exit codes, with the fixture project through the real language runtime and
 * dynamic-provider host. Each test names the pulumi/pulumi source it mirrors. The in-process config tests
 * (stack files, `secure:` values, overrides, project-level config) are in tests/engine/unit/config.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { runEngine } from "../../tools/local-engine";
import { main } from "../../tools/local-engine/cli";
import { cliArgs, FIXTURE_API_KEY, ItemSpec, useFixtureProject } from "./helpers";
import { newEncryptionSalt, pulumiEncrypt } from "./passphrase";

// Engine runs start two Node processes each; PBKDF2 (1,000,000 iterations) takes about a second per key.
jest.setTimeout(180_000);

const PASSPHRASE = "correct horse battery staple";
let secrets: { encryptionSalt: string; key: Buffer };

beforeAll(() => {
  secrets = newEncryptionSalt(PASSPHRASE);
});

// ---------------------------------------------------------------------------------------------------------
// Through the real language runtime and dynamic-provider host.

describe("through the engine", () => {
  const p = useFixtureProject("each");

  test("secure and structured stack-file values reach the program as the CLI hands them over, and the provider's configure", async () => {
    const enc = (s: string) => pulumiEncrypt(secrets.key, s);
    fs.writeFileSync(
      path.join(p.dir, "Pulumi.dev.yaml"),
      [
        `encryptionsalt: ${secrets.encryptionSalt}`,
        "config:",
        `  fixture:cloudFile: ${p.cloudFile}`,
        "  fixture:apiKey:",
        `    secure: ${enc(FIXTURE_API_KEY)}`,
        "  fixture:db:",
        "    host: db.internal",
        "    port: 5432",
        "    password:",
        `      secure: ${enc("db-pass-plain")}`,
        "  fixture:zones:",
        "    - z1",
        "    - z2",
        "  fixture:count: 3",
      ].join("\n"),
    );
    // A program that reports what it was handed (and creates one Item, which the provider only allows
    // when its configure received the decrypted fixture:apiKey).
    fs.writeFileSync(
      path.join(p.dir, "index.js"),
      [
        'const pulumi = require("@pulumi/pulumi");',
        'const { Item } = require("fixture-cloud");',
        'const cfg = new pulumi.Config("fixture");',
        'const item = new Item("cfg", { name: "cfg", size: cfg.requireNumber("count"), zone: cfg.requireObject("zones")[1] });',
        "exports.zone = item.zone;",
        'exports.zonesRaw = cfg.require("zones");',
        'exports.db = pulumi.unsecret(cfg.requireSecretObject("db"));',
        'exports.dbRaw = pulumi.unsecret(cfg.requireSecret("db"));',
        'exports.secretKeys = JSON.parse(process.env.PULUMI_CONFIG_SECRET_KEYS).sort();',
        'exports.dbSecret = pulumi.isSecret(cfg.requireSecretObject("db"));',
        // An inline dynamic provider that reports what its configure received (one object shared by both
        // functions, which the closure serializer keeps shared).
        "const seen = {};",
        "const probe = {",
        '  async configure(req) { seen.db = req.config.get("fixture:db"); seen.zones = req.config.get("fixture:zones"); seen.count = req.config.get("fixture:count"); },',
        '  async create() { return { id: "probe", outs: { ...seen } }; },',
        "};",
        "class Probe extends pulumi.dynamic.Resource {",
        "  constructor(name) { super(probe, name, { db: undefined, zones: undefined, count: undefined }, {}); }",
        "}",
        'const p = new Probe("probe");',
        "exports.configured = { db: p.db, zones: p.zones, count: p.count };",
      ].join("\n"),
    );
    const run = (env: NodeJS.ProcessEnv) =>
      runEngine({ command: "up", projectDir: p.dir, env, onOutput: process.env.ENGINE_TEST_VERBOSE ? (l) => process.stdout.write(l + "\n") : undefined });

    // Without the passphrase nothing runs, and the message says what to set.
    const saved = { p: process.env.PULUMI_CONFIG_PASSPHRASE, f: process.env.PULUMI_CONFIG_PASSPHRASE_FILE };
    delete process.env.PULUMI_CONFIG_PASSPHRASE;
    delete process.env.PULUMI_CONFIG_PASSPHRASE_FILE;
    try {
      await expect(run({})).rejects.toThrow(/fixture:apiKey, fixture:db are encrypted \(secure:\).*PULUMI_CONFIG_PASSPHRASE/);
      expect(p.cloud().items).toEqual({});
    } finally {
      if (saved.p !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE = saved.p;
      if (saved.f !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE_FILE = saved.f;
    }

    const r = await run({ PULUMI_CONFIG_PASSPHRASE: PASSPHRASE });
    expect(r.errors).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(p.item("cfg")).toMatchObject({ size: 3, zone: "z2" }); // created: configure had the decrypted key
    expect(r.outputs).toMatchObject({
      zone: "z2",
      zonesRaw: '["z1","z2"]',
      db: { host: "db.internal", port: 5432, password: "db-pass-plain" },
      dbRaw: '{"host":"db.internal","password":"db-pass-plain","port":5432}',
      secretKeys: ["fixture:apiKey", "fixture:db"],
      dbSecret: true,
      // Configure gets the same strings, decrypted (deploy/target.go GetPackageConfig: c.Value(decrypter)).
      configured: { db: '{"host":"db.internal","password":"db-pass-plain","port":5432}', zones: '["z1","z2"]', count: "3" },
    });
    // Config never goes to the state (the program exported db unsecret on purpose, so only the key is checked).
    expect(p.stateText()).not.toContain(FIXTURE_API_KEY);
  });

  test("exit codes: 7 for changes with --expect-no-changes (up applies them first), 1 for failures, 2 for bad usage", async () => {
    // pkg/cmd/pulumi/cmd/exit_codes.go (ExitNoChanges = 7, ExitConfigurationError = 2, ExitCodeError = 1);
    // operations/preview.go and up.go return NoChangesExpectedError only when the operation succeeded, and
    // up only after the update is applied.
    const args = (cmd: string, resources: ItemSpec[]) => cliArgs(p, cmd, resources, "unused");
    const write = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
    const usage = jest.spyOn(console, "error").mockImplementation(() => undefined);
    // The CLI reads the passphrase from this process's environment: none for this test.
    const saved = { p: process.env.PULUMI_CONFIG_PASSPHRASE, f: process.env.PULUMI_CONFIG_PASSPHRASE_FILE };
    delete process.env.PULUMI_CONFIG_PASSPHRASE;
    delete process.env.PULUMI_CONFIG_PASSPHRASE_FILE;
    try {
      const one: ItemSpec[] = [{ name: "x", size: 1 }];
      expect(await main([...args("preview", one), "--expect-no-changes"])).toBe(7);
      expect(p.cloud().items).toEqual({}); // preview changes nothing
      expect(await main([...args("up", one), "--expect-no-changes", "--yes"])).toBe(7);
      expect(p.item("x")).toMatchObject({ size: 1 }); // ...but up applied the change before exiting 7
      expect(await main([...args("up", one), "--expect-no-changes"])).toBe(0);
      expect(await main([...args("preview", one), "--expect-no-changes"])).toBe(0);
      // refresh: drift is a change (operations/refresh.go; engine/update.go counts the refresh's ResultOp).
      p.editCloud((c) => {
        Object.values(c.items).find((i) => i.name === "x")!.size = 4;
      });
      expect(await main([...args("refresh", one), "--expect-no-changes"])).toBe(7);
      expect(await main([...args("refresh", one), "--expect-no-changes"])).toBe(0); // the state took the drift
      // A failed step is a failure (1), even with changes and --expect-no-changes.
      expect(await main([...args("up", [{ name: "x", size: "big" }]), "--expect-no-changes"])).toBe(1);
      expect(await main([...args("destroy", one), "--expect-no-changes"])).toBe(2); // not a destroy flag
      expect(await main(["up", "--no-such-flag"])).toBe(2);
      // Config that cannot be decrypted stops the run before it starts: 1, with the reason on stderr.
      fs.writeFileSync(
        path.join(p.dir, "Pulumi.dev.yaml"),
        [`encryptionsalt: ${secrets.encryptionSalt}`, "config:", "  fixture:other:", `    secure: ${pulumiEncrypt(secrets.key, "o")}`].join("\n"),
      );
      expect(await main([...args("preview", one), "--expect-no-changes"])).toBe(1);
      expect(String(usage.mock.calls.at(-1)?.[0])).toMatch(/fixture:other is encrypted.*PULUMI_CONFIG_PASSPHRASE/);
    } finally {
      write.mockRestore();
      usage.mockRestore();
      if (saved.p !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE = saved.p;
      if (saved.f !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE_FILE = saved.f;
    }
  });

  test("--refresh: up converges drift in one run; destroy does not delete what is already gone", async () => {
    // The refresh runs first, against the state (engine/update.go: Refresh option; refresh steps are not
    // counted as changes outside the refresh command).
    const program: ItemSpec[] = [{ name: "a", size: 1 }, { name: "b", size: 1 }];
    expect((await p.run("up", program)).ok).toBe(true);
    p.editCloud((c) => {
      Object.values(c.items).find((i) => i.name === "a")!.size = 9; // drifted
    });
    p.clearLog();
    const up = await p.run("up", program, { refresh: true, expectNoChanges: true });
    // The drift is seen, then reverted by the update (a change: exit 7 with --expect-no-changes).
    expect(up.drift?.map((d) => d.name)).toEqual(["a"]);
    expect(up.steps.filter((s) => s.op !== "same").map((s) => [s.op, s.name])).toEqual([["update", "a"]]);
    expect(up.exitCode).toBe(7);
    expect(p.item("a")?.size).toBe(1);

    p.editCloud((c) => {
      const b = Object.values(c.items).find((i) => i.name === "b")!;
      delete c.items[b.id]; // deleted outside Pulumi
    });
    p.clearLog();
    const destroy = await p.run("destroy", program, { refresh: true });
    expect(destroy.ok).toBe(true);
    expect(p.cloud().log).toEqual(["delete:a"]); // b was dropped by the refresh, not deleted again
    expect(p.cloud().items).toEqual({});
  });
});
