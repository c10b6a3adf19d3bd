/**
 * Project settings (Pulumi.yaml) and stack configuration (Pulumi.<stack>.yaml, a JSON config file, and
 * `--config` / `--secret` values), read the way the Pulumi CLI reads them and handed to the program and the
 * provider host in the form the CLI hands them over.
 *
 * Sources mirrored (pulumi/pulumi):
 * - sdk/go/common/workspace/loaders.go `LoadProjectStackBytes` (unqualified keys get the project namespace),
 *   sdk/go/common/resource/config/object.go (`unmarshalObject`, `isSecureValue`, `MarshalString`) and
 *   plaintext.go (`marshalText`): how a YAML value becomes the string the program gets;
 * - sdk/go/common/resource/config/crypt.go (`NewSymmetricCrypterFromPassphrase`, `symmetricCrypter.DecryptValue`)
 *   and pkg/secrets/passphrase/manager.go (`symmetricCrypterFromPhraseAndState`, `readPassphrase`): `secure:`
 *   values of the passphrase secrets provider;
 * - pkg/workspace/config.go `mergeConfig` and sdk/go/common/workspace/project.go
 *   `RewriteShorthandConfigValues`: project-level `config:` defaults and required keys from Pulumi.yaml;
 * - sdk/nodejs/cmd/pulumi-language-nodejs/main.go `constructConfig` / `constructConfigSecretKeys`: the
 *   `PULUMI_CONFIG` / `PULUMI_CONFIG_SECRET_KEYS` variables;
 * - pkg/resource/deploy/target.go `GetPackageConfig`: a dynamic provider's Configure gets every key, full
 *   names, each value the same string the program gets.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as yaml from "js-yaml";
import { z } from "zod";
import { errorText } from "./errors";

/** A project-level config type's `items` (for `type: array`), nested for arrays of arrays. */
export interface ProjectConfigItemsType {
  type: string;
  items?: ProjectConfigItemsType;
}

/** One project-level config declaration (Pulumi.yaml `config:`), after the shorthand is expanded. */
export interface ProjectConfigType {
  type?: string;
  items?: ProjectConfigItemsType;
  default?: unknown;
  value?: unknown;
  secret?: boolean;
}

/** What the engine needs from Pulumi.yaml. */
export interface ProjectSettings {
  name: string;
  /** Program entry relative to the project ("." = the package's main / index). */
  main: string;
  /** Run the program through ts-node (Pulumi's `runtime.options.typescript`). */
  typescript: boolean;
  /** Project-level config declarations by key as written (`instanceSize`, `aws:region`). */
  config: Record<string, ProjectConfigType>;
}

/** One config value; secrets are passed to the program as secrets and never written to the state. */
export interface ConfigValue {
  /** The string the program and the provider get: objects and lists as JSON text, like the Pulumi CLI. */
  value: string;
  secret: boolean;
}

/** Full config keys (`vmhost:apiKey`) to values. */
export type StackConfig = Record<string, ConfigValue>;

/**
 * Plain integers as gopkg.in/yaml.v3 resolves them (resolve.go: underscores dropped, then Go's
 * `strconv.ParseInt(s, 0, 64)`, then `ParseUint`): `010` is octal 8 and `1_000` is 1000, unlike YAML 1.2's
 * core schema; integers beyond 2^53 stay exact (as bigint) where Go keeps an int64/uint64. What does not
 * parse falls through to the float and string types.
 */
const goYamlInt = new yaml.Type("tag:yaml.org,2002:int", {
  kind: "scalar",
  resolve: (data: unknown) => typeof data === "string" && goInt(data) !== undefined,
  construct: (data: string) => {
    const v = goInt(data)!;
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  },
  // no predicate/represent: files are only read (yaml.load), never written with this schema
});

function goInt(text: string): bigint | undefined {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text.replace(/_/g, ""));
  if (!m) return undefined;
  const digits = m[2];
  const body = /^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits; // Go base 0: a leading 0 is octal
  const v = m[1] === "-" ? -BigInt(body) : BigInt(body);
  if (v >= -(2n ** 63n) && v < 2n ** 63n) return v; // ParseInt
  if (m[1] === "" && v < 2n ** 64n) return v; // ParseUint (which takes no sign)
  return undefined;
}

// js-yaml's CORE schema (null, booleans, floats, strings, with Go's integers above) resolves the plain
// scalars as gopkg.in/yaml.v3 decoding into `any` does, which is what the CLI does. Timestamps stay strings
// (yaml.v3 keeps timestamp-looking values as strings when the target is `any`), so the DEFAULT schema's Date
// conversion would be wrong here.
const CLI_SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [goYamlInt] });

function parseYaml(file: string): unknown {
  const text = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  try {
    return yaml.load(text, { schema: CLI_SCHEMA, filename: file });
  } catch (e) {
    throw new Error(`${file} is not valid YAML: ${errorText(e)}`);
  }
}

const itemsTypeSchema: z.ZodType<ProjectConfigItemsType> = z.lazy(() =>
  z.object({ type: z.string(), items: itemsTypeSchema.optional() }),
);

const projectConfigTypeSchema = z.object({
  type: z.string().optional(),
  description: z.string().optional(),
  items: itemsTypeSchema.optional(),
  default: z.unknown().optional(),
  value: z.unknown().optional(),
  secret: z.boolean().optional(),
});

const projectSchema = z.object({
  name: z.string().min(1),
  main: z.string().optional(),
  runtime: z.union([
    z.string(),
    z.object({ name: z.string(), options: z.object({ typescript: z.boolean().optional() }).passthrough().nullish() }),
  ], { error: "expected a runtime name (runtime: nodejs) or a name with options (runtime: {name: nodejs, options: {typescript: true}})" }),
  config: z.record(z.string(), z.unknown()).nullish(),
});

/** Each issue as `field.path: message` (`(top)` for the document itself), for the messages naming what is wrong. */
const issuesText = (error: z.ZodError): string => error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ");

/**
 * Reads Pulumi.yaml. TypeScript is assumed when not stated and the project has an index.ts or tsconfig.json,
 * as Pulumi's nodejs runtime defaults to typescript: true. Project-level config shorthand (`key: value`) is
 * expanded as the CLI does (project.go `RewriteShorthandConfigValues`): a primitive or list under a key of the
 * project's namespace is a default, under another namespace a value.
 */
export function readProject(projectDir: string): ProjectSettings {
  const file = path.join(projectDir, "Pulumi.yaml");
  if (!fs.existsSync(file)) throw new Error(`no Pulumi.yaml in ${projectDir}`);
  const parsed = projectSchema.safeParse(parseYaml(file));
  if (!parsed.success) {
    throw new Error(`${file}: ${issuesText(parsed.error)}`);
  }
  const p = parsed.data;
  const tsFlag = typeof p.runtime === "object" ? p.runtime.options?.typescript : undefined;
  const typescript =
    tsFlag ?? (fs.existsSync(path.join(projectDir, "tsconfig.json")) || fs.existsSync(path.join(projectDir, "index.ts")));
  const config: Record<string, ProjectConfigType> = {};
  for (const [key, raw] of Object.entries(p.config ?? {})) {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      const ownNamespace = !key.includes(":") || key.startsWith(`${p.name}:`);
      config[key] = ownNamespace ? { default: raw } : { value: raw };
      continue;
    }
    const t = projectConfigTypeSchema.safeParse(raw);
    if (!t.success) throw new Error(`${file}: config ${key}: ${issuesText(t.error)}`);
    const declared: ProjectConfigType = { type: t.data.type, default: t.data.default, value: t.data.value, secret: t.data.secret };
    if (t.data.items) declared.items = t.data.items;
    config[key] = declared;
  }
  return { name: p.name, main: p.main ?? ".", typescript, config };
}

/**
 * A config key in its canonical `<namespace>:<name>` form: a key without a namespace gets the project's, as
 * `pulumi config set` and the stack-file loader do; the old `<namespace>:config:<name>` form is accepted.
 * Anything else is refused with the CLI's message (config/key.go `ParseKey`).
 */
export function fullKey(key: string, project: string): string {
  const colons = key.split(":").length - 1;
  if (colons === 0) return `${project}:${key}`;
  if (colons === 1) return key;
  const parts = key.split(":");
  if (colons === 2 && parts[1] === "config") return `${parts[0]}:${parts[2]}`;
  throw new Error(
    `could not parse ${key} as a configuration key (configuration keys should be of the form \`<namespace>:<name>\`)`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// The passphrase secrets provider.

const PBKDF2_ITERATIONS = 1_000_000; // crypt.go NewSymmetricCrypterFromPassphrase
const KEY_BYTES = 32; // AES-256
const GCM_TAG_BYTES = 16; // Go's cipher.AEAD Seal appends the tag to the ciphertext
const GCM_NONCE_BYTES = 12;

const NO_PASSPHRASE =
  "passphrase must be set with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables";
const INCORRECT_PASSPHRASE =
  "incorrect passphrase, please set PULUMI_CONFIG_PASSPHRASE to the correct passphrase or set " +
  "PULUMI_CONFIG_PASSPHRASE_FILE to a file containing the passphrase";

/**
 * The passphrase, looked up as the CLI does (passphrase/manager.go `readPassphrase`): PULUMI_CONFIG_PASSPHRASE
 * when set (even empty), else the trimmed content of PULUMI_CONFIG_PASSPHRASE_FILE when that is set and not
 * empty; undefined when neither is (the CLI would prompt on a terminal; the engine never prompts).
 */
export function configPassphrase(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PULUMI_CONFIG_PASSPHRASE !== undefined) return env.PULUMI_CONFIG_PASSPHRASE;
  const file = env.PULUMI_CONFIG_PASSPHRASE_FILE;
  if (file) {
    try {
      return fs.readFileSync(path.resolve(file), "utf8").trim();
    } catch (e) {
      throw new Error(`unable to read PULUMI_CONFIG_PASSPHRASE_FILE: ${errorText(e)}`);
    }
  }
  return undefined;
}

/** Decrypts one `v1:<nonce>:<ciphertext>` value (crypt.go `symmetricCrypter.DecryptValue`); throws when it does not open. */
export function decryptSymmetric(key: Buffer, value: string): string {
  const parts = value.split(":");
  if (parts.length !== 3) throw new Error("bad value");
  if (parts[0] !== "v1") throw new Error("unknown value version");
  const nonce = Buffer.from(parts[1], "base64");
  const sealed = Buffer.from(parts[2], "base64");
  if (nonce.length !== GCM_NONCE_BYTES) throw new Error("bad value: nonce size is incorrect");
  if (sealed.length < GCM_TAG_BYTES) throw new Error("message authentication failed");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("message authentication failed");
  }
}

// PBKDF2 with a million iterations takes about a second: derive each (passphrase, salt) key once per process
// (the CLI caches its secrets manager per state the same way).
const keyCache = new Map<string, Promise<Buffer>>();

/**
 * The AES key of a stack file's `encryptionsalt` (`v1:<base64 salt>:v1:<nonce>:<ciphertext>`), after checking
 * that the check value decrypts to "pulumi" (passphrase/manager.go `symmetricCrypterFromPhraseAndState`).
 */
export async function passphraseKey(passphrase: string, encryptionSalt: string): Promise<Buffer> {
  const splits = encryptionSalt.split(":");
  if (splits.length < 3) throw new Error("malformed encryptionsalt");
  if (splits[0] !== "v1") throw new Error("unknown encryptionsalt version");
  const salt = Buffer.from(splits[1], "base64");
  const check = splits.slice(2).join(":");
  const cacheKey = crypto.createHash("sha256").update(passphrase).update("\0").update(encryptionSalt).digest("hex");
  let pending = keyCache.get(cacheKey);
  if (!pending) {
    pending = new Promise<Buffer>((resolve, reject) =>
      crypto.pbkdf2(passphrase, salt, PBKDF2_ITERATIONS, KEY_BYTES, "sha256", (err, key) => (err ? reject(err) : resolve(key))),
    );
    keyCache.set(cacheKey, pending);
  }
  const key = await pending;
  let decrypted: string | undefined;
  try {
    decrypted = decryptSymmetric(key, check);
  } catch {
    decrypted = undefined;
  }
  if (decrypted !== "pulumi") throw new Error(INCORRECT_PASSPHRASE);
  return key;
}

// ---------------------------------------------------------------------------------------------------------
// Values.

/** `{secure: "<ciphertext>"}` exactly (object.go `isSecureValue`: a map of one key "secure" holding a string). */
function secureCiphertext(v: unknown): string | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const s = (v as Record<string, unknown>).secure;
  return keys.length === 1 && typeof s === "string" ? s : undefined;
}

/** Whether a raw config value holds a `secure:` leaf anywhere (object.go `object.Secure`). */
function containsSecure(v: unknown): boolean {
  if (secureCiphertext(v) !== undefined) return true;
  if (Array.isArray(v)) return v.some(containsSecure);
  if (v !== null && typeof v === "object") return Object.values(v).some(containsSecure);
  return false;
}

function goNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`unsupported value ${n}`);
  // Go's encoding/json and JavaScript switch to exponent form at the same magnitudes (< 1e-6, >= 1e21); Go
  // writes at least two exponent digits (1e-07).
  return String(n).replace(/e([+-])(\d)$/, "e$10$2");
}

/**
 * JSON text as Go's `json.Marshal` writes it, which is what the CLI hands the program for objects and lists
 * (plaintext.go `marshalText`): object keys sorted (byte order), `<`, `>`, `&`, U+2028 and U+2029 escaped.
 */
export function goJson(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") {
    return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  }
  if (typeof v === "number") return goNumber(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  if (typeof v === "object") {
    const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${goJson(k)}:${goJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  throw new Error(`unsupported config value ${String(v)}`);
}

type Decrypt = (ciphertext: string) => string;

function decryptDeep(v: unknown, decrypt: Decrypt): unknown {
  const ct = secureCiphertext(v);
  if (ct !== undefined) return decrypt(ct);
  if (Array.isArray(v)) return v.map((x) => decryptDeep(x, decrypt));
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decryptDeep(x, decrypt)]));
  }
  return v;
}

/**
 * The string the CLI hands over for one raw (YAML or JSON) config value: strings as they are, numbers and
 * booleans as JSON text, `null` as "null", `{secure: ...}` decrypted, objects and lists as Go JSON with their
 * secure leaves decrypted (object.go `unmarshalObject` / `MarshalString`, plaintext.go `marshalText`).
 */
export function configText(raw: unknown, decrypt: Decrypt): ConfigValue {
  const secret = containsSecure(raw);
  const plain = decryptDeep(raw, decrypt);
  return { value: typeof plain === "string" ? plain : goJson(plain), secret };
}

// ---------------------------------------------------------------------------------------------------------
// Stack files.

/** Pulumi.<stack>.yaml as read, values still raw (secure ones still encrypted). */
export interface StackFile {
  file: string;
  encryptionSalt?: string;
  secretsProvider?: string;
  encryptedKey?: string;
  /** Full key -> raw YAML value. */
  values: Record<string, unknown>;
}

const stackFileSchema = z
  .object({
    encryptionsalt: z.string().nullish(),
    secretsprovider: z.string().nullish(),
    encryptedkey: z.string().nullish(),
    config: z.record(z.string(), z.unknown()).nullish(),
  })
  .passthrough()
  .nullish();

/** Reads Pulumi.<stack>.yaml (a missing file is an empty config, as for the CLI). Nothing is decrypted here. */
export function readStackFile(projectDir: string, stack: string, project: string): StackFile {
  const file = path.join(projectDir, `Pulumi.${stack}.yaml`);
  if (!fs.existsSync(file)) return { file, values: {} };
  const parsed = stackFileSchema.safeParse(parseYaml(file));
  if (!parsed.success) {
    throw new Error(`${file}: ${issuesText(parsed.error)}`);
  }
  const s = parsed.data ?? {};
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.config ?? {})) values[fullKey(k, project)] = v;
  return {
    file,
    encryptionSalt: s.encryptionsalt ?? undefined,
    secretsProvider: s.secretsprovider ?? undefined,
    encryptedKey: s.encryptedkey ?? undefined,
    values,
  };
}

/** A decrypter for the stack file's `secure:` values, for the keys that need one (named in errors). */
async function stackDecrypter(stackFile: StackFile, keys: string[], env: NodeJS.ProcessEnv): Promise<Decrypt> {
  const { file } = stackFile;
  const which = `${keys.join(", ")} ${keys.length === 1 ? "is" : "are"} encrypted (secure:)`;
  const override = `, or override ${keys.length === 1 ? "it" : "them"} with --secret KEY=VALUE`;
  const provider = stackFile.secretsProvider;
  if (provider && provider !== "passphrase") {
    throw new Error(
      `${file}: ${which} with the secrets provider "${provider}", which the local engine does not support ` +
        `(only the passphrase provider)${override}`,
    );
  }
  if (!stackFile.encryptionSalt) {
    // No salt and no provider: the Pulumi Cloud ("service") secrets manager, which only the service can use.
    throw new Error(
      `${file}: ${which} but the file has no encryptionsalt: the values were encrypted by Pulumi Cloud or another ` +
        `secrets provider the local engine cannot use (only the passphrase provider)${override}`,
    );
  }
  const passphrase = configPassphrase(env);
  if (passphrase === undefined) {
    throw new Error(`${file}: ${which} with the passphrase secrets provider: ${NO_PASSPHRASE}${override}`);
  }
  let key: Buffer;
  try {
    key = await passphraseKey(passphrase, stackFile.encryptionSalt);
  } catch (e) {
    throw new Error(`${file}: ${which}; failed to decrypt: ${errorText(e)}`);
  }
  return (ct) => decryptSymmetric(key, ct);
}

const configFileSchema = z.record(
  z.string(),
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.object({ secret: z.string() }).strict(),
    z.object({ value: z.unknown() }).strict(),
  ]),
);

/**
 * Reads a JSON config file: `{ "key": "value", "other": { "secret": "value" }, "obj": { "value": {...} } }`.
 * Non-string values are handed over as the CLI would (numbers and booleans as text, objects and lists as JSON).
 */
export function readConfigJson(file: string, project: string): StackConfig {
  return readConfigJsonValues(file, project).config;
}

/** readConfigJson, plus which keys hold objects or lists (`{"value": {...}}`), for the project type checks. */
function readConfigJsonValues(file: string, project: string): { config: StackConfig; objects: Set<string> } {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file} is not a JSON config file: ${errorText(e)}`);
  }
  const result = configFileSchema.safeParse(json);
  if (!result.success) {
    const where = result.error.issues[0]?.path.join(".");
    throw new Error(
      `${file}${where ? `: ${where}` : ""}: expected an object of keys to a string, number, boolean, {"value": <any JSON>} or {"secret": "<text>"}`,
    );
  }
  const parsed = result.data;
  const config: StackConfig = {};
  const objects = new Set<string>();
  const noSecrets: Decrypt = () => {
    throw new Error(`${file}: {"secure": ...} values are not supported in a config file; use {"secret": "value"}`);
  };
  for (const [k, v] of Object.entries(parsed)) {
    const key = fullKey(k, project);
    if (typeof v === "object" && "secret" in v) {
      config[key] = { value: v.secret, secret: true };
    } else {
      const raw = typeof v === "object" ? v.value : v;
      config[key] = configText(raw, noSecrets);
      if (typeof raw === "object") objects.add(key); // a map, a list or null
    }
  }
  return { config, objects };
}

/** Where config comes from, lowest precedence first. */
export interface ConfigSources {
  projectDir: string;
  project: ProjectSettings;
  stack: string;
  /** The environment the passphrase is read from. */
  env: NodeJS.ProcessEnv;
  configFile?: string;
  config?: Record<string, string>;
  secrets?: Record<string, string>;
}

/**
 * The stack's config: Pulumi.<stack>.yaml, then the JSON config file, then `--config`, then `--secret` (each
 * overriding the earlier ones key by key), then Pulumi.yaml's project-level defaults for keys still unset.
 * Only the `secure:` values that are not overridden are decrypted, so `--secret k=v` replaces an encrypted
 * value without needing the passphrase. A project-namespace key declared in Pulumi.yaml without a default
 * and set nowhere is refused, as by the CLI (pkg/workspace/config.go `mergeConfig`).
 */
export async function resolveStackConfig(src: ConfigSources): Promise<StackConfig> {
  const projectName = src.project.name;
  const stackFile = readStackFile(src.projectDir, src.stack, projectName);
  const overrides: StackConfig = {};
  // Keys whose value is an object in the CLI's sense (value.go Value.Object: a map, a list or null), which
  // the project type checks read as JSON rather than as text.
  const objects = new Set<string>();
  if (src.configFile) {
    const fromJson = readConfigJsonValues(src.configFile, projectName);
    Object.assign(overrides, fromJson.config);
    fromJson.objects.forEach((k) => objects.add(k));
  }
  const flag = (k: string, value: string, secret: boolean): void => {
    const key = fullKey(k, projectName);
    overrides[key] = { value, secret };
    objects.delete(key);
  };
  for (const [k, v] of Object.entries(src.config ?? {})) flag(k, v, false);
  for (const [k, v] of Object.entries(src.secrets ?? {})) flag(k, v, true);

  const fromFile = Object.entries(stackFile.values).filter(([k]) => !(k in overrides));
  const encrypted = fromFile.filter(([, v]) => containsSecure(v)).map(([k]) => k);
  let decrypt: Decrypt = () => {
    throw new Error("unreachable: no secure values");
  };
  if (encrypted.length > 0) decrypt = await stackDecrypter(stackFile, encrypted, src.env);

  const config: StackConfig = {};
  for (const [k, raw] of fromFile) {
    // A map, a list or null (typeof null is "object"): an object value for the type checks, as in the CLI.
    if (typeof raw === "object" && secureCiphertext(raw) === undefined) objects.add(k);
    try {
      config[k] = configText(raw, decrypt);
    } catch (e) {
      throw new Error(`${stackFile.file}: ${k}: failed to decrypt: ${errorText(e)}`);
    }
  }
  Object.assign(config, overrides);

  // Project-level config (mergeConfig): the default wins over value when both are given; primitives become
  // their text (createConfigValue: fmt "%v"), anything else JSON.
  const missing: string[] = [];
  for (const declared of Object.keys(src.project.config).sort()) {
    const t = src.project.config[declared];
    const key = fullKey(declared, projectName);
    if (key in config) continue;
    const given = t.default !== undefined ? t.default : t.value;
    if (given === undefined || given === null) {
      if (key.startsWith(`${projectName}:`)) missing.push(declared);
      continue;
    }
    // createConfigValue: string, int and bool are plain values, anything else an object value.
    const primitive = typeof given === "string" || typeof given === "boolean" || (typeof given === "number" && Number.isInteger(given));
    config[key] = { value: typeof given === "string" ? given : goJson(given), secret: false };
    if (!primitive) objects.add(key);
  }
  if (missing.length > 0) {
    const quoted = missing.map((k) => `'${k}'`);
    const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} and ${quoted[quoted.length - 1]}`;
    throw new Error(
      `Stack '${src.stack}' is missing configuration value${missing.length === 1 ? "" : "s"} ${list} ` +
        `(declared in Pulumi.yaml without a default): set it in ${path.basename(stackFile.file)} or pass --config`,
    );
  }
  validateProjectConfig(src.stack, src.project, config, objects);
  return config;
}

/**
 * Checks the config against Pulumi.yaml's typed declarations as the CLI does before every preview and
 * update (pkg/workspace/config.go `validateStackConfigValues` / `validateStackConfigValue`,
 * workspace/project.go `ValidateConfigValue`): a declaration with `secret: true` needs a secret value, and
 * one with a `type` a value of that type. Scalars are checked as the text the program gets (so "3" is an
 * integer and "true" a boolean, as for the CLI); objects and lists as their JSON.
 */
function validateProjectConfig(stack: string, project: ProjectSettings, config: StackConfig, objects: Set<string>): void {
  for (const declared of Object.keys(project.config).sort()) {
    const t = project.config[declared];
    const key = fullKey(declared, project.name);
    // A key set nowhere is checked as the CLI's zero Value: a plain empty string.
    const v = config[key] ?? { value: "", secret: false };
    if (t.secret && !v.secret) {
      throw new Error(`Stack '${stack}' with configuration key '${declared}' must be encrypted as it's secret`);
    }
    if (t.type === undefined) continue;
    const content: unknown = objects.has(key) ? JSON.parse(v.value) : v.value;
    if (!validConfigValue(t.type, t.items, content)) {
      throw new Error(`Stack '${stack}' with configuration key '${declared}' must be of type '${fullTypeName(t.type, t.items)}'`);
    }
  }
}

function fullTypeName(type: string, items: ProjectConfigItemsType | undefined): string {
  return items ? `array<${fullTypeName(items.type, items.items)}>` : type;
}

/** workspace/project.go `ValidateConfigValue`. */
function validConfigValue(type: string, items: ProjectConfigItemsType | undefined, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      if (typeof value === "number") return Number.isInteger(value);
      // strconv.Atoi: optional sign and decimal digits, within 64 bits.
      return typeof value === "string" && /^[+-]?\d+$/.test(value) && BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n;
    case "boolean":
      return typeof value === "boolean" || value === "true" || value === "false";
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return Array.isArray(value) && items !== undefined && value.every((x) => validConfigValue(items.type, items.items, x));
  }
}

/**
 * The `PULUMI_CONFIG` and `PULUMI_CONFIG_SECRET_KEYS` variables the language runtime reads. Like the nodejs
 * language host (`constructConfig`), PULUMI_CONFIG keys are written in the old `<namespace>:config:<name>`
 * form, which @pulumi/pulumi reads alongside the new one; the secret keys list uses `<namespace>:<name>`.
 */
export function configEnv(config: StackConfig): { PULUMI_CONFIG: string; PULUMI_CONFIG_SECRET_KEYS: string } {
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    const colon = k.indexOf(":");
    values[`${k.slice(0, colon)}:config:${k.slice(colon + 1)}`] = v.value;
  }
  const secretKeys = Object.keys(config).filter((k) => config[k].secret);
  return { PULUMI_CONFIG: JSON.stringify(values), PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys) };
}

/** Plain key -> value map (secrets decrypted), for the provider's `configure`. */
export function plainConfig(config: StackConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) out[k] = v.value;
  return out;
}
