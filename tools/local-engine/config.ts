/**
 * Project settings (Pulumi.yaml) and stack configuration (Pulumi.<stack>.yaml, a JSON config file, and
 * `--config` / `--secret` values), read the way the Pulumi CLI would hand them to a program.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

/** What the engine needs from Pulumi.yaml. */
export interface ProjectSettings {
  name: string;
  /** Program entry relative to the project ("." = the package's main / index). */
  main: string;
  /** Run the program through ts-node (Pulumi's `runtime.options.typescript`). */
  typescript: boolean;
}

/** One config value; secrets are passed to the program as secrets and never written to the state. */
export interface ConfigValue {
  value: string;
  secret: boolean;
}

/** Full config keys (`vmhost:apiKey`) to values. */
export type StackConfig = Record<string, ConfigValue>;

function unquote(s: string): string {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t;
}

/**
 * Reads Pulumi.yaml. Only the top-level `name`, `main` and `runtime.options.typescript` are used, so a
 * line-based read is enough (no YAML dependency). TypeScript is assumed when not stated and the project
 * has an index.ts or tsconfig.json, as Pulumi's nodejs runtime defaults to typescript: true.
 */
export function readProject(projectDir: string): ProjectSettings {
  const file = path.join(projectDir, "Pulumi.yaml");
  if (!fs.existsSync(file)) throw new Error(`no Pulumi.yaml in ${projectDir}`);
  const text = fs.readFileSync(file, "utf8");
  const name = /^name:\s*(.+)$/m.exec(text)?.[1];
  if (!name) throw new Error(`${file} has no name`);
  const main = /^main:\s*(.+)$/m.exec(text)?.[1];
  const tsFlag = /^\s+typescript:\s*(true|false)\s*$/m.exec(text)?.[1];
  const typescript =
    tsFlag !== undefined
      ? tsFlag === "true"
      : fs.existsSync(path.join(projectDir, "tsconfig.json")) || fs.existsSync(path.join(projectDir, "index.ts"));
  return { name: unquote(name), main: main ? unquote(main) : ".", typescript };
}

/** Qualifies a key with the project name when it has no namespace, as `pulumi config set` does. */
export function fullKey(key: string, project: string): string {
  return key.includes(":") ? key : `${project}:${key}`;
}

/**
 * Reads the `config:` block of Pulumi.<stack>.yaml (flat `key: value` lines). Values encrypted by the
 * Pulumi CLI (`secure:`) cannot be decrypted here: pass them with `--secret` instead.
 */
export function readStackConfigFile(projectDir: string, stack: string, project: string): StackConfig {
  const file = path.join(projectDir, `Pulumi.${stack}.yaml`);
  const out: StackConfig = {};
  if (!fs.existsSync(file)) return out;
  const lines = fs.readFileSync(file, "utf8").split(/\r?\n/);
  let inConfig = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^config:\s*$/.test(line)) {
      inConfig = true;
      continue;
    }
    if (!inConfig || line.trim() === "" || line.trim().startsWith("#")) continue;
    if (!/^\s/.test(line)) {
      inConfig = false;
      continue;
    }
    const m = /^\s+([^\s:][^:]*(?::[^\s:][^:]*)?):\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = fullKey(m[1].trim(), project);
    if (m[2] === "") {
      if (/^\s+secure:/.test(lines[i + 1] ?? "")) {
        throw new Error(`${file}: ${key} is encrypted by the Pulumi CLI; pass it with --secret ${key}=VALUE instead`);
      }
      // A list or object below the key: refused rather than read as "" (Pulumi would hand the program JSON).
      throw new Error(`${file}: ${key} is not a plain value; pass it as JSON with --config ${key}='...' or --config-file`);
    }
    // An unquoted value ends at " #" (a YAML comment).
    const raw = /^["']/.test(m[2]) ? m[2] : m[2].replace(/\s+#.*$/, "");
    out[key] = { value: unquote(raw), secret: false };
  }
  return out;
}

const configFileSchema = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.object({ secret: z.string() }), z.object({ value: z.string() })]),
);

/**
 * Reads a JSON config file: `{ "key": "value", "other": { "secret": "value" } }`. Non-string values are
 * JSON-encoded, as Pulumi stores them.
 */
export function readConfigJson(file: string, project: string): StackConfig {
  const parsed = configFileSchema.parse(JSON.parse(fs.readFileSync(file, "utf8")));
  const out: StackConfig = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v === "object") {
      out[fullKey(k, project)] = "secret" in v ? { value: v.secret, secret: true } : { value: v.value, secret: false };
    } else {
      out[fullKey(k, project)] = { value: typeof v === "string" ? v : JSON.stringify(v), secret: false };
    }
  }
  return out;
}

/** The `PULUMI_CONFIG` and `PULUMI_CONFIG_SECRET_KEYS` variables the language runtime reads. */
export function configEnv(config: StackConfig): { PULUMI_CONFIG: string; PULUMI_CONFIG_SECRET_KEYS: string } {
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) values[k] = v.value;
  const secretKeys = Object.keys(config).filter((k) => config[k].secret);
  return { PULUMI_CONFIG: JSON.stringify(values), PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys) };
}

/** Plain key -> value map (secrets decrypted), for the provider's `configure`. */
export function plainConfig(config: StackConfig): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) out[k] = v.value;
  return out;
}
