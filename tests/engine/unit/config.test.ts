/**
 * Conformance of the local engine's configuration with the Pulumi CLI (issue 10, points 10 and 13), in process
 * (tools/local-engine/config.ts; no engine run): stack files read with a YAML parser, `secure:` values of the
 * passphrase secrets provider, structured values, overrides, project-level config. Each test names the
 * pulumi/pulumi source it mirrors. The runs through the real language runtime and provider host are in
 * tests/engine/config-and-cli.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  ProjectSettings,
  StackConfig,
  configEnv,
  decryptSymmetric,
  plainConfig,
  passphraseKey,
  readProject,
  resolveStackConfig,
} from "../../../tools/local-engine/config";
import { newEncryptionSalt, pulumiEncrypt } from "../passphrase";

// PBKDF2 (1,000,000 iterations) takes about a second per key, more on a loaded machine.
jest.setTimeout(120_000);

const PASSPHRASE = "correct horse battery staple";
let secrets: { encryptionSalt: string; key: Buffer };
let dir: string;

beforeAll(() => {
  secrets = newEncryptionSalt(PASSPHRASE);
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "vmhost-engine-config-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function project(name: string, config: ProjectSettings["config"] = {}): ProjectSettings {
  return { name, main: ".", typescript: false, config };
}

function resolve(name: string, env: NodeJS.ProcessEnv, extra: { config?: Record<string, string>; secrets?: Record<string, string>; configFile?: string; stack?: string; project?: ProjectSettings } = {}): Promise<StackConfig> {
  return resolveStackConfig({
    projectDir: dir,
    project: extra.project ?? project(name),
    stack: extra.stack ?? "dev",
    env,
    config: extra.config,
    secrets: extra.secrets,
    configFile: extra.configFile,
  });
}

// A stack file written by the Pulumi CLI itself, verbatim from pulumi/pulumi tests/roundtrip/roundtrip_test.go
// (TestConfigRoundtripComments), whose passphrase is "TestConfigRoundtripComments": a known vector.
const PULUMI_WRITTEN_STACK = `
encryptionsalt: v1:ThS5UPxP9qc=:v1:UZYAXF+ylaJ0rGhv:9OTvBnOEDFgxs7btjzSu+LZ470vLpg==
# 🔴 header comment
config:
  foo:a: some-value # 🟠 comment after value
  # 🟡 comment before key
  foo:b: some-value
  foo:c:
    a: A
    b: B
    c:
      - 1
      - 2
      - 3 # 🟢 comment in array
      # 🔵 comment after array
  foo:d:
    secure: v1:T1ftqhY0hqr+EJK6:+jvd5PMecFx80tcavzuZY4tLatgIfoe/xR72GA== # 🟣 comment on secret

# 🟥 footer comment`;

describe("secure: values of the passphrase secrets provider", () => {
  // Mirrors passphrase/manager.go symmetricCrypterFromPhraseAndState + crypt.go symmetricCrypter.DecryptValue.
  test("a stack file the Pulumi CLI wrote is decrypted with PULUMI_CONFIG_PASSPHRASE (Pulumi's own test vector)", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), PULUMI_WRITTEN_STACK);
    const config = await resolve("foo", { PULUMI_CONFIG_PASSPHRASE: "TestConfigRoundtripComments" });
    expect(config).toEqual({
      "foo:a": { value: "some-value", secret: false },
      "foo:b": { value: "some-value", secret: false },
      "foo:c": { value: '{"a":"A","b":"B","c":[1,2,3]}', secret: false },
      "foo:d": { value: "secret-value", secret: true },
    });
  });

  test("the encryptionsalt check value of Pulumi's passphrase manager tests: right and wrong passphrase", async () => {
    // pkg/secrets/passphrase/manager_test.go: state salt for the passphrase "password".
    const salt = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ==";
    await expect(passphraseKey("password", salt)).resolves.toHaveLength(32);
    await expect(passphraseKey("password123", salt)).rejects.toThrow(/incorrect passphrase/);
  });

  test("values encrypted by an independent implementation, nested in objects and lists, decrypt; the key is secret", async () => {
    const enc = (s: string) => pulumiEncrypt(secrets.key, s);
    fs.writeFileSync(
      path.join(dir, "Pulumi.dev.yaml"),
      [
        `encryptionsalt: ${secrets.encryptionSalt}`,
        "config:",
        "  vmhost:apiKey:",
        `    secure: ${enc("sk-live-123")}`,
        "  app:db:",
        "    host: db.internal",
        "    port: 5432",
        "    password:",
        `      secure: ${enc("pa<ss>&word")}`,
        "  app:tokens:",
        `    - secure: ${enc("t1")}`,
        "    - plain",
      ].join("\n"),
    );
    const config = await resolve("app", { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE });
    expect(config["vmhost:apiKey"]).toEqual({ value: "sk-live-123", secret: true });
    // plaintext.go marshalText: Go's json.Marshal, keys sorted, <>& escaped; the whole key is secret
    // (object.go object.Secure: a composite holding a secure value is secure).
    expect(config["app:db"]).toEqual({
      value: '{"host":"db.internal","password":"pa\\u003css\\u003e\\u0026word","port":5432}',
      secret: true,
    });
    expect(JSON.parse(config["app:db"].value)).toEqual({ host: "db.internal", port: 5432, password: "pa<ss>&word" });
    expect(config["app:tokens"]).toEqual({ value: '["t1","plain"]', secret: true });
    expect(JSON.parse(configEnv(config).PULUMI_CONFIG_SECRET_KEYS).sort()).toEqual(["app:db", "app:tokens", "vmhost:apiKey"]);
  });

  test("without a passphrase the file is refused naming PULUMI_CONFIG_PASSPHRASE; a wrong one is called wrong", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), PULUMI_WRITTEN_STACK);
    await expect(resolve("foo", {})).rejects.toThrow(
      /Pulumi\.dev\.yaml: foo:d is encrypted \(secure:\) with the passphrase secrets provider: passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE/,
    );
    await expect(resolve("foo", { PULUMI_CONFIG_PASSPHRASE: "not it" })).rejects.toThrow(
      /foo:d is encrypted \(secure:\); failed to decrypt: incorrect passphrase, please set PULUMI_CONFIG_PASSPHRASE to the correct passphrase/,
    );
    // An empty PULUMI_CONFIG_PASSPHRASE is a passphrase (manager.go readPassphrase: os.LookupEnv), here a wrong one.
    await expect(resolve("foo", { PULUMI_CONFIG_PASSPHRASE: "" })).rejects.toThrow(/incorrect passphrase/);
  });

  test("several encrypted keys are all named, in the plural; an explicit passphrase secrets provider is the passphrase one", async () => {
    const enc = (s: string) => pulumiEncrypt(secrets.key, s);
    const stack = (extra: string[]) =>
      [...extra, `encryptionsalt: ${secrets.encryptionSalt}`, "config:", `  app:a:\n    secure: ${enc("1")}`, `  app:b:\n    secure: ${enc("2")}`].join("\n");
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), stack([]));
    await expect(resolve("app", {})).rejects.toThrow(
      `Pulumi.dev.yaml: app:a, app:b are encrypted (secure:) with the passphrase secrets provider: passphrase must be set with ` +
        "PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables, or override them with --secret KEY=VALUE",
    );
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), stack(["secretsprovider: passphrase"]));
    expect(await resolve("app", { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE })).toEqual({
      "app:a": { value: "1", secret: true },
      "app:b": { value: "2", secret: true },
    });
  });

  test("PULUMI_CONFIG_PASSPHRASE_FILE is read (trimmed) when PULUMI_CONFIG_PASSPHRASE is not set", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), PULUMI_WRITTEN_STACK);
    const file = path.join(dir, "passphrase.txt");
    fs.writeFileSync(file, "TestConfigRoundtripComments\n");
    const config = await resolve("foo", { PULUMI_CONFIG_PASSPHRASE_FILE: file });
    expect(config["foo:d"]).toEqual({ value: "secret-value", secret: true });
    // a file that cannot be read is named as such, not taken as "no passphrase"
    await expect(resolve("foo", { PULUMI_CONFIG_PASSPHRASE_FILE: path.join(dir, "missing.txt") })).rejects.toThrow(
      /^unable to read PULUMI_CONFIG_PASSPHRASE_FILE: ENOENT: no such file or directory, open '.*missing\.txt'$/,
    );
  });

  test("other secrets providers (KMS, Pulumi Cloud) are refused clearly; --secret overrides still work", async () => {
    fs.writeFileSync(
      path.join(dir, "Pulumi.dev.yaml"),
      ["secretsprovider: awskms://alias/pulumi", "encryptedkey: AQICAHh", "config:", "  app:k:", "    secure: AAABAxyz"].join("\n"),
    );
    await expect(resolve("app", { PULUMI_CONFIG_PASSPHRASE: "x" })).rejects.toThrow(
      new Error(
        `${path.join(dir, "Pulumi.dev.yaml")}: app:k is encrypted (secure:) with the secrets provider "awskms://alias/pulumi", which the local ` +
          "engine does not support (only the passphrase provider), or override it with --secret KEY=VALUE",
      ),
    );
    // A Pulumi Cloud stack's file: secure values, no salt, no provider line.
    fs.writeFileSync(path.join(dir, "Pulumi.cloud.yaml"), ["config:", "  app:k:", "    secure: AAABAxyz"].join("\n"));
    await expect(resolve("app", { PULUMI_CONFIG_PASSPHRASE: "x" }, { stack: "cloud" })).rejects.toThrow(
      new Error(
        `${path.join(dir, "Pulumi.cloud.yaml")}: app:k is encrypted (secure:) but the file has no encryptionsalt: the values were encrypted ` +
          "by Pulumi Cloud or another secrets provider the local engine cannot use (only the passphrase provider), or override it with --secret KEY=VALUE",
      ),
    );
    // ...and --secret gets past both.
    expect((await resolve("app", {}, { stack: "cloud", secrets: { "app:k": "v" } }))["app:k"]).toEqual({ value: "v", secret: true });
  });
});

describe("secure: values that are not the CLI's ciphertext", () => {
  // crypt.go symmetricCrypter.DecryptValue: each malformed form has its own message (none decrypts garbage).
  const key = Buffer.alloc(32, 7);
  const b64 = (n: number) => Buffer.alloc(n, 1).toString("base64");
  test.each([
    ["not three parts", `v1:${b64(12)}`, "bad value"],
    ["another version", `v2:${b64(12)}:${b64(32)}`, "unknown value version"],
    ["a nonce of 8 bytes", `v1:${b64(8)}:${b64(32)}`, "bad value: nonce size is incorrect"],
    ["a sealed part shorter than any tag", `v1:${b64(12)}:${b64(2)}`, "message authentication failed"],
    ["a wrong tag", `v1:${b64(12)}:${b64(32)}`, "message authentication failed"],
  ])("%s: %s", (_what, value, message) => {
    expect(() => decryptSymmetric(key, value)).toThrow(new Error(message));
  });

  test("an empty secret (ciphertext of just the tag) decrypts to the empty string", () => {
    expect(decryptSymmetric(key, pulumiEncrypt(key, ""))).toBe("");
  });

  test("encryptionsalt: malformed, another version, or a check value that does not open each get the CLI's message", async () => {
    await expect(passphraseKey(PASSPHRASE, "v1:AAAA")).rejects.toThrow(new Error("malformed encryptionsalt"));
    await expect(passphraseKey(PASSPHRASE, `v2:AAAA:${pulumiEncrypt(secrets.key, "pulumi")}`)).rejects.toThrow(new Error("unknown encryptionsalt version"));
    // three parts is well-formed (the check value is the rest): it just does not open
    await expect(passphraseKey(PASSPHRASE, "v1:AAAA:junk")).rejects.toThrow(/incorrect passphrase/);
  });

  test("each (passphrase, salt) key is derived once per process (a PBKDF2 of a million rounds takes a second)", async () => {
    const first = passphraseKey(PASSPHRASE, secrets.encryptionSalt);
    expect(await passphraseKey(PASSPHRASE, secrets.encryptionSalt)).toBe(await first); // the very same key, not derived again
  });
});

describe("values and overrides", () => {
  test("scalars, null, dates and keys become the strings the CLI hands over", async () => {
    // object.go unmarshalObject/MarshalString + loaders.go stackConfigNamespacedWithProject + key.go ParseKey.
    fs.writeFileSync(
      path.join(dir, "Pulumi.dev.yaml"),
      [
        "config:",
        "  count: 3",
        "  enabled: true",
        "  ratio: 0.5",
        "  tiny: 0.0000001",
        "  huge: 1.5e21", // two exponent digits already: kept (Go: 1.5e+21)
        "  day: 2024-01-02", // yaml.v3 keeps timestamp-looking values as strings when decoding into `any`
        "  quoted: '3'",
        "  empty:",
        "  app:config:old: old-form key",
        "  nested:",
        "    z: 1",
        "    a: [true, null]",
        // gopkg.in/yaml.v3 resolve.go: underscores dropped, Go base-0 integers (010 is octal), int64/uint64 exact.
        "  octal: 010",
        "  thousand: 1_000",
        "  big: 12345678901234567890",
        "  ids: [9007199254740993, 0x10]",
      ].join("\n"),
    );
    expect(await resolve("app", {})).toEqual({
      "app:count": { value: "3", secret: false },
      "app:enabled": { value: "true", secret: false },
      "app:ratio": { value: "0.5", secret: false },
      "app:tiny": { value: "1e-07", secret: false },
      "app:huge": { value: "1.5e+21", secret: false },
      "app:day": { value: "2024-01-02", secret: false },
      "app:quoted": { value: "3", secret: false },
      "app:empty": { value: "null", secret: false },
      "app:old": { value: "old-form key", secret: false },
      "app:nested": { value: '{"a":[true,null],"z":1}', secret: false },
      "app:octal": { value: "8", secret: false },
      "app:thousand": { value: "1000", secret: false },
      "app:big": { value: "12345678901234567890", secret: false },
      "app:ids": { value: "[9007199254740993,16]", secret: false },
    });
    // Go's encoding/json has no text for infinities: the CLI fails on them too.
    fs.writeFileSync(path.join(dir, "Pulumi.inf.yaml"), "config:\n  big: .inf\n");
    await expect(resolve("app", {}, { stack: "inf" })).rejects.toThrow("unsupported value Infinity");
    fs.writeFileSync(path.join(dir, "Pulumi.bad.yaml"), "config:\n  a:b:c: 1\n");
    await expect(resolve("app", {}, { stack: "bad" })).rejects.toThrow(/could not parse a:b:c as a configuration key/);
    // the old <namespace>:config:<name> form has exactly two colons (config/key.go ParseKey): one more is refused
    fs.writeFileSync(path.join(dir, "Pulumi.legacy.yaml"), "config:\n  vmhost:config:region: jkt\n");
    expect(await resolve("app", {}, { stack: "legacy" })).toEqual({ "vmhost:region": { value: "jkt", secret: false } });
    fs.writeFileSync(path.join(dir, "Pulumi.bad.yaml"), "config:\n  vmhost:config:region:x: jkt\n");
    await expect(resolve("app", {}, { stack: "bad" })).rejects.toThrow(
      "could not parse vmhost:config:region:x as a configuration key (configuration keys should be of the form `<namespace>:<name>`)",
    );
  });

  test("a byte-order mark that starts a file (Windows editors write one) is dropped; one inside a value is kept", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "\uFEFFname: app\nruntime: nodejs\n");
    expect(readProject(dir).name).toBe("app");
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "\uFEFFconfig:\n  greeting: \"a\uFEFFb\"\n");
    expect(await resolve("app", {})).toEqual({ "app:greeting": { value: "a\uFEFFb", secret: false } });
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  greeting: \"a\uFEFFb\"\n");
    expect(await resolve("app", {})).toEqual({ "app:greeting": { value: "a\uFEFFb", secret: false } });
  });

  test("a Pulumi.yaml that is not a project is refused naming the file and each field wrong, by its path", () => {
    const file = path.join(dir, "Pulumi.yaml");
    fs.writeFileSync(file, "- name: app\n");
    expect(() => readProject(dir)).toThrow(new Error(`${file}: (top): Invalid input: expected object, received array`));
    fs.writeFileSync(file, "name: 42\nruntime:\n  options:\n    typescript: maybe\n");
    expect(() => readProject(dir)).toThrow(
      new Error(
        `${file}: name: Invalid input: expected string, received number; runtime: expected a runtime name (runtime: nodejs) or a name with options (runtime: {name: nodejs, options: {typescript: true}})`,
      ),
    );
    fs.writeFileSync(file, "name: app\nruntime: nodejs\nconfig:\n  ports:\n    type: array\n    items:\n      type: 80\n    secret: maybe\n");
    expect(() => readProject(dir)).toThrow(
      new Error(`${file}: config ports: items.type: Invalid input: expected string, received number; secret: Invalid input: expected boolean, received string`),
    );
  });

  test("integers as gopkg.in/yaml.v3 reads them: 0o/0b/hex/octal with signs, exact within int64 and uint64, floats beyond", async () => {
    // resolve.go: ParseInt(s, 0, 64), then ParseUint (no sign), then float; Go's float text is the shortest
    // round-trip digits, as JavaScript's (so 2^64 reads as the float 18446744073709552000 in both).
    const cases: [string, string][] = [
      ["0o17", "15"], ["0b101", "5"], ["-0x10", "-16"], ["-010", "-8"], ["+7", "7"],
      ["-9007199254740993", "-9007199254740993"], // below -(2^53 - 1): exact, not rounded to a double
      ["9223372036854775807", "9223372036854775807"], // 2^63 - 1: int64
      ["-9223372036854775808", "-9223372036854775808"], // -(2^63): int64
      ["-9223372036854775809", "-9223372036854776000"], // below int64, and uint64 takes no sign: a float
      ["9223372036854775808", "9223372036854775808"], // 2^63: uint64
      ["+9223372036854775808", "9223372036854776000"], // uint64 takes no sign: a float
      ["18446744073709551615", "18446744073709551615"], // 2^64 - 1: uint64
      ["18446744073709551616", "18446744073709552000"], // 2^64: a float
    ];
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), ["config:", ...cases.map(([yamlText], i) => `  k${i}: ${yamlText}`)].join("\n"));
    const config = await resolve("app", {});
    expect(cases.map(([yamlText], i) => [yamlText, config[`app:k${i}`]?.value])).toEqual(cases);
  });

  test("a map with a secure key and other keys is a plain object, not a secret (object.go isSecureValue: exactly one key)", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  app:o:\n    secure: not-ciphertext\n    note: x\n");
    expect(await resolve("app", {})).toEqual({ "app:o": { value: '{"note":"x","secure":"not-ciphertext"}', secret: false } });
  });

  test("a stack file that is not YAML is refused, naming the file and where in it", async () => {
    const file = path.join(dir, "Pulumi.dev.yaml");
    fs.writeFileSync(file, "config:\n  a: [1, 2\n");
    await expect(resolve("app", {})).rejects.toThrow(`${file} is not valid YAML: `);
    await expect(resolve("app", {})).rejects.toThrow(new RegExp(` in "${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" \\(\\d+:\\d+\\)`));
  });

  test("PULUMI_CONFIG uses the language host's <namespace>:config:<name> keys", () => {
    // pulumi-language-nodejs/main.go constructConfig / constructConfigSecretKeys.
    const env = configEnv({ "app:db": { value: '{"a":1}', secret: true }, "vmhost:baseUrl": { value: "u", secret: false } });
    expect(JSON.parse(env.PULUMI_CONFIG)).toEqual({ "app:config:db": '{"a":1}', "vmhost:config:baseUrl": "u" });
    expect(JSON.parse(env.PULUMI_CONFIG_SECRET_KEYS)).toEqual(["app:db"]);
  });

  test("--config and --secret override the file's value, encrypted or not, without needing the passphrase", async () => {
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), PULUMI_WRITTEN_STACK);
    fs.writeFileSync(path.join(dir, "c.json"), JSON.stringify({ "foo:b": "from-file", "foo:e": { value: { x: [1] } } }));
    const config = await resolve("foo", {}, {
      secrets: { "foo:d": "given-secret" },
      config: { a: "given-plain" }, // no namespace: the project's
      configFile: path.join(dir, "c.json"),
    });
    expect(config).toEqual({
      "foo:a": { value: "given-plain", secret: false },
      "foo:b": { value: "from-file", secret: false },
      "foo:c": { value: '{"a":"A","b":"B","c":[1,2,3]}', secret: false },
      "foo:d": { value: "given-secret", secret: true },
      "foo:e": { value: '{"x":[1]}', secret: false },
    });
    // A plain override of an encrypted value is plain; --secret wins over --config for the same key.
    expect((await resolve("foo", {}, { config: { "foo:d": "plain" } }))["foo:d"]).toEqual({ value: "plain", secret: false });
    expect((await resolve("foo", {}, { config: { "foo:d": "plain" }, secrets: { "foo:d": "s" } }))["foo:d"]).toEqual({ value: "s", secret: true });
  });

  test("Pulumi.yaml project config: shorthand defaults, values for other namespaces, required keys", async () => {
    // project.go RewriteShorthandConfigValues + pkg/workspace/config.go mergeConfig.
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      [
        "name: app",
        "runtime: nodejs",
        "config:",
        "  size: small", // own namespace: a default
        "  app:tier: gold", // own namespace, named: a default too
        "  vmhost:region: jakarta", // another namespace: a value
        "  zones: [a, b]",
        "  replicas:",
        "    type: integer",
        "    default: 2",
        "  dbPassword:",
        "    type: string",
        "    secret: true",
      ].join("\n"),
    );
    const proj = readProject(dir);
    expect(proj.config).toEqual({
      size: { default: "small" },
      "app:tier": { default: "gold" },
      "vmhost:region": { value: "jakarta" },
      zones: { default: ["a", "b"] },
      replicas: { type: "integer", default: 2 },
      dbPassword: { type: "string", secret: true },
    });
    await expect(resolve("app", {}, { project: proj })).rejects.toThrow(/Stack 'dev' is missing configuration value 'dbPassword'/);
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config:\n  app:size: large\n");
    expect(await resolve("app", {}, { project: proj, secrets: { dbPassword: "pw" } })).toEqual({
      "app:size": { value: "large", secret: false },
      "app:tier": { value: "gold", secret: false },
      "vmhost:region": { value: "jakarta", secret: false },
      "app:zones": { value: '["a","b"]', secret: false },
      "app:replicas": { value: "2", secret: false },
      "app:dbPassword": { value: "pw", secret: true },
    });
    // A key with nothing after it is a null default: required, as a declaration without a default.
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: app\nruntime: nodejs\nconfig:\n  empty:\n");
    expect(readProject(dir).config).toEqual({ empty: { default: null } });
    await expect(resolve("app", {}, { project: readProject(dir) })).rejects.toThrow("missing configuration value 'empty'");
  });

  test("Pulumi.yaml project config: typed and secret declarations are enforced as by the CLI", async () => {
    // pkg/workspace/config.go validateStackConfigValue + workspace/project.go ValidateConfigValue: scalars are
    // checked as text ("3" is an integer), objects and lists as JSON.
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      [
        "name: app",
        "runtime: nodejs",
        "config:",
        "  replicas:",
        "    type: integer",
        "  ports:",
        "    type: array",
        "    items:",
        "      type: integer",
        "  dbPassword:",
        "    type: string",
        "    secret: true",
      ].join("\n"),
    );
    const proj = readProject(dir);
    const withStack = async (lines: string[], extra: { config?: Record<string, string>; secrets?: Record<string, string> } = { secrets: { dbPassword: "pw" } }) => {
      fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), ["config:", ...lines].join("\n"));
      return resolve("app", {}, { project: proj, ...extra });
    };
    expect(await withStack(["  app:replicas: 3", "  app:ports: [80, 443]"])).toMatchObject({
      "app:replicas": { value: "3" },
      "app:ports": { value: "[80,443]" },
    });
    await expect(withStack(["  app:replicas: many", "  app:ports: [80]"])).rejects.toThrow(
      "Stack 'dev' with configuration key 'replicas' must be of type 'integer'",
    );
    await expect(withStack(["  app:replicas: 1", "  app:ports: [http]"])).rejects.toThrow(
      "Stack 'dev' with configuration key 'ports' must be of type 'array<integer>'",
    );
    await expect(withStack(["  app:replicas: 1", "  app:ports: [80]"], { config: { dbPassword: "plain" } })).rejects.toThrow(
      "Stack 'dev' with configuration key 'dbPassword' must be encrypted as it's secret",
    );
  });
});

describe("project config declarations, in detail (pkg/workspace/config.go mergeConfig, workspace/project.go ValidateConfigValue)", () => {
  const decl = (config: ProjectSettings["config"]): ProjectSettings => project("app", config);
  const check = (config: ProjectSettings["config"], stack: Record<string, string> = {}, secrets: Record<string, string> = {}): Promise<StackConfig> =>
    resolve("app", {}, { project: decl(config), config: stack, secrets });

  test("the missing keys are all named, in order, sorted; keys of other namespaces are never required", async () => {
    await expect(check({ b: {}, a: {}, c: { type: "string" }, "other:x": {} })).rejects.toThrow(
      "Stack 'dev' is missing configuration values 'a', 'b' and 'c' (declared in Pulumi.yaml without a default): set it in Pulumi.dev.yaml or pass --config",
    );
    await expect(check({ b: {}, a: {} })).rejects.toThrow("missing configuration values 'a' and 'b' (declared");
    await expect(check({ "app:only": { default: null } })).rejects.toThrow("missing configuration value 'app:only' (declared");
    expect(await check({ "other:x": {} })).toEqual({});
  });

  test("default wins over value; numbers, booleans and objects become their text; a set key keeps its value", async () => {
    expect(
      await check(
        {
          a: { default: "d", value: "v" },
          b: { value: "v" },
          n: { default: 1.5 },
          i: { default: 3 },
          t: { default: true },
          o: { default: { k: [1] } },
          set: { default: "unused" },
        },
        { set: "mine" },
      ),
    ).toEqual({
      "app:a": { value: "d", secret: false },
      "app:b": { value: "v", secret: false },
      "app:n": { value: "1.5", secret: false },
      "app:i": { value: "3", secret: false },
      "app:t": { value: "true", secret: false },
      "app:o": { value: '{"k":[1]}', secret: false },
      "app:set": { value: "mine", secret: false },
    });
  });

  test("types: integer within 64 bits, boolean text, objects, nested arrays; a non-integer default is not an integer", async () => {
    const ok = async (type: string, value: string, items?: ProjectSettings["config"][string]["items"]): Promise<boolean> => {
      fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), `config:\n  app:k: ${value}\n`);
      return resolve("app", {}, { project: decl({ k: { type, ...(items ? { items } : {}) } }) }).then(
        () => true,
        (e: Error) => {
          expect(e.message).toMatch(/^Stack 'dev' with configuration key 'k' must be of type '/);
          return false;
        },
      );
    };
    expect(await ok("integer", "-12")).toBe(true);
    expect(await ok("integer", "'+7'")).toBe(true);
    expect(await ok("integer", "'9223372036854775807'")).toBe(true);
    expect(await ok("integer", "'9223372036854775808'")).toBe(false);
    expect(await ok("integer", "'-9223372036854775808'")).toBe(true);
    expect(await ok("integer", "'-9223372036854775809'")).toBe(false);
    expect(await ok("integer", "1.5")).toBe(false);
    expect(await ok("integer", "'1 2'")).toBe(false);
    expect(await ok("boolean", "true")).toBe(true);
    expect(await ok("boolean", "'false'")).toBe(true);
    expect(await ok("boolean", "yes")).toBe(false);
    expect(await ok("string", "'x'")).toBe(true);
    expect(await ok("string", "")).toBe(false); // a key with nothing after it is null (an object value), not text
    expect(await ok("string", "'null'")).toBe(true);
    expect(await ok("string", "{a: 1}")).toBe(false);
    expect(await ok("object", "{a: 1}")).toBe(true);
    expect(await ok("object", "[1]")).toBe(false);
    expect(await ok("object", "x")).toBe(false);
    expect(await ok("object", "")).toBe(false); // null is no map
    expect(await ok("array", "[true, false]", { type: "boolean" })).toBe(true);
    expect(await ok("array", "[{a: 1}, null]", { type: "object" })).toBe(false);
    expect(await ok("array", "[[1, 2], [3]]", { type: "array", items: { type: "integer" } })).toBe(true);
    expect(await ok("array", "[[1, x]]", { type: "array", items: { type: "integer" } })).toBe(false);
    expect(await ok("array", "[1]")).toBe(false); // an array needs its items' type
    expect(await ok("array", "x", { type: "string" })).toBe(false);
    fs.rmSync(path.join(dir, "Pulumi.dev.yaml"));
    await expect(check({ k: { type: "integer", default: 1.5 } })).rejects.toThrow("must be of type 'integer'");
    // several wrong: the first in key order is named, whatever the declaration order
    await expect(check({ b: { type: "integer", default: "x" }, a: { type: "boolean", default: "y" } })).rejects.toThrow(
      new Error("Stack 'dev' with configuration key 'a' must be of type 'boolean'"),
    );
    // createConfigValue: string, integer and boolean defaults are text; anything else (1.5, a map) an object value
    await expect(check({ k: { type: "string", default: 1.5 } })).rejects.toThrow("must be of type 'string'");
    expect(await check({ k: { type: "string", default: "x" } })).toEqual({ "app:k": { value: "x", secret: false } });
    expect(await check({ k: { type: "object", default: { a: 1 } } })).toEqual({ "app:k": { value: '{"a":1}', secret: false } });
    expect(await check({ k: { type: "boolean", default: true } })).toEqual({ "app:k": { value: "true", secret: false } });
    expect(await check({ k: { type: "integer", default: 2 } })).toEqual({ "app:k": { value: "2", secret: false } });
    // ...so a boolean or integer default is also a string's text, where a map or 1.5 is not
    expect(await check({ b: { type: "string", default: true }, i: { type: "string", default: 2 } })).toEqual({
      "app:b": { value: "true", secret: false },
      "app:i": { value: "2", secret: false },
    });
    await expect(check({ k: { type: "array", items: { type: "array", items: { type: "string" } } } }, { k: "x" })).rejects.toThrow(
      "must be of type 'array<array<string>>'",
    );
    // A key of another namespace set nowhere (never required) is checked as the CLI's zero value: plain, empty text.
    expect(await check({ "other:x": { type: "string" } })).toEqual({});
    await expect(check({ "other:s": { secret: true } })).rejects.toThrow("Stack 'dev' with configuration key 'other:s' must be encrypted as it's secret");
    // A declared type with no value anywhere is checked as the empty string.
    await expect(check({ k: { type: "integer", value: null } })).rejects.toThrow("missing configuration value 'k'");
  });

  test("an object from a --config-file is checked as an object, and a --config override of it as text", async () => {
    fs.writeFileSync(path.join(dir, "c.json"), JSON.stringify({ "app:o": { value: { x: 1 } } }));
    const project = decl({ o: { type: "object" } });
    const configFile = path.join(dir, "c.json");
    expect(await resolve("app", {}, { project, configFile })).toEqual({ "app:o": { value: '{"x":1}', secret: false } });
    await expect(resolve("app", {}, { project, configFile, config: { o: '{"x":1}' } })).rejects.toThrow(
      "Stack 'dev' with configuration key 'o' must be of type 'object'",
    );
    // what is not the file's format is refused naming the file and the key, before anything runs
    fs.writeFileSync(configFile, JSON.stringify({ "app:o": {} }));
    await expect(resolve("app", {}, { configFile })).rejects.toThrow(
      new Error(`${configFile}: app:o: expected an object of keys to a string, number, boolean, {"value": <any JSON>} or {"secret": "<text>"}`),
    );
    fs.writeFileSync(configFile, "{");
    await expect(resolve("app", {}, { configFile })).rejects.toThrow(`${configFile} is not a JSON config file: `);
    // a config file's plain values are text for the type checks, its {"value": ...} maps and lists objects
    fs.writeFileSync(configFile, JSON.stringify({ "app:s": "text", "app:n": 3, "app:m": { value: { a: 1 } } }));
    expect(await resolve("app", {}, { project: decl({ s: { type: "string" }, n: { type: "string" } }), configFile })).toMatchObject({
      "app:s": { value: "text" },
      "app:n": { value: "3" },
    });
    await expect(resolve("app", {}, { project: decl({ m: { type: "string" } }), configFile })).rejects.toThrow("Stack 'dev' with configuration key 'm' must be of type 'string'");
    fs.writeFileSync(configFile, "[1]");
    await expect(resolve("app", {}, { configFile })).rejects.toThrow(
      new Error(`${configFile}: expected an object of keys to a string, number, boolean, {"value": <any JSON>} or {"secret": "<text>"}`),
    );
    // secure: is the stack file's ciphertext, which a config file cannot carry, not even inside a value
    fs.writeFileSync(configFile, JSON.stringify({ "app:k": { value: { db: { secure: "v1:abc:def" } } } }));
    await expect(resolve("app", {}, { configFile })).rejects.toThrow(
      new Error(`${configFile}: {"secure": ...} values are not supported in a config file; use {"secret": "value"}`),
    );
  });

  test("a stack file that is not a stack's settings is refused naming the file and the field", async () => {
    const file = path.join(dir, "Pulumi.dev.yaml");
    fs.writeFileSync(file, "config: [a, b]\n");
    await expect(resolve("app", {})).rejects.toThrow(new Error(`${file}: config: Invalid input: expected record, received array`));
    fs.writeFileSync(file, "- config\n");
    await expect(resolve("app", {})).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: \\(top\\): `));
  });

  test("a declared secret set as a secret passes; set plainly or by a default it is refused", async () => {
    expect(await check({ k: { secret: true } }, {}, { k: "s" })).toEqual({ "app:k": { value: "s", secret: true } });
    await expect(check({ k: { secret: true, default: "d" } })).rejects.toThrow("Stack 'dev' with configuration key 'k' must be encrypted as it's secret");
    // a secure: value of the stack file is checked as its decrypted text
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), `encryptionsalt: ${secrets.encryptionSalt}\nconfig:\n  app:k:\n    secure: ${pulumiEncrypt(secrets.key, "s3cret")}\n`);
    expect(await resolve("app", { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE }, { project: decl({ k: { type: "string", secret: true } }) })).toEqual({
      "app:k": { value: "s3cret", secret: true },
    });
  });

  test("what the program and the provider get: language-host keys, secret keys, plain values", () => {
    const config: StackConfig = { "app:a": { value: "1", secret: false }, "vmhost:apiKey": { value: "k:v", secret: true } };
    expect(configEnv(config)).toEqual({
      PULUMI_CONFIG: JSON.stringify({ "app:config:a": "1", "vmhost:config:apiKey": "k:v" }),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(["vmhost:apiKey"]),
    });
    expect(plainConfig(config)).toEqual({ "app:a": "1", "vmhost:apiKey": "k:v" });
  });
});
