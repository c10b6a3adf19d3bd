/**
 * Property values as they travel between the Pulumi language runtime, this engine, the dynamic-provider
 * host and the state file, and the helpers that keep secrets and unknowns intact along the way.
 *
 * Wire conventions (the same ones `@pulumi/pulumi/runtime/rpc.js` uses, so the program understands what we
 * send back):
 * - a secret is `{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: X }`;
 * - an unknown (a value only known after an up, sent during preview) is the string
 *   `04da6b54-80e4-46f7-96ec-b56ff0331ba9`.
 */
import * as crypto from "node:crypto";

/** A JSON value: what a protobuf `Struct` can carry. */
export type PropertyValue = null | boolean | number | string | PropertyValue[] | PropertyMap;
/** An object of property values, e.g. a resource's inputs or outputs. */
export interface PropertyMap {
  [key: string]: PropertyValue;
}

/** Key that marks a special (signed) value such as a secret. */
export const SPECIAL_SIG_KEY = "4dabf18193072939515e22adb298388d";
/** Signature value that marks a secret. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** The sentinel the Pulumi runtime uses for a value that is unknown during preview. */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The input of every dynamic resource that holds its serialized provider. */
export const PROVIDER_KEY = "__provider";

function isObject(v: PropertyValue | undefined): v is PropertyMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when `v` is a secret wrapper (in memory form `{sig, value}` or state form `{sig, ciphertext}`). */
export function isSecret(v: PropertyValue | undefined): v is PropertyMap {
  return isObject(v) && v[SPECIAL_SIG_KEY] === SECRET_SIG;
}

/** Wraps `v` as a secret (idempotent). */
export function makeSecret(v: PropertyValue): PropertyValue {
  return isSecret(v) ? v : { [SPECIAL_SIG_KEY]: SECRET_SIG, value: v };
}

/** True when `v` is, or contains anywhere, a secret. */
export function containsSecret(v: PropertyValue | undefined): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (isObject(v)) return Object.values(v).some(containsSecret);
  return false;
}

/** True when `v` is, or contains anywhere, an unknown. */
export function containsUnknown(v: PropertyValue | undefined): boolean {
  if (v === UNKNOWN_VALUE) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (isObject(v)) return Object.values(v).some(containsUnknown);
  return false;
}

/** Removes every secret wrapper, deeply: what the dynamic-provider host (which does not accept secrets) gets. */
export function unwrapSecrets(v: PropertyValue): PropertyValue {
  if (isSecret(v)) return unwrapSecrets(v.value ?? null);
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (isObject(v)) {
    const out: PropertyMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = unwrapSecrets(x);
    return out;
  }
  return v;
}

/** Replaces every secret by the text "[secret]", deeply: for values shown to people or returned to callers. */
export function maskSecrets(v: PropertyValue): PropertyValue {
  if (isSecret(v)) return "[secret]";
  if (Array.isArray(v)) return v.map(maskSecrets);
  if (isObject(v)) {
    const out: PropertyMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = maskSecrets(x);
    return out;
  }
  return v;
}

/** {@link unwrapSecrets} for a whole property map. */
export function unwrapMap(m: PropertyMap): PropertyMap {
  return unwrapSecrets(m) as PropertyMap;
}

/**
 * Wraps the top-level properties named in `secretKeys` as secrets. Secrecy is tracked per top-level
 * property: a property that contained a secret anywhere becomes secret as a whole (coarser than Pulumi,
 * never weaker).
 */
export function wrapSecretKeys(m: PropertyMap, secretKeys: Iterable<string>): PropertyMap {
  const out: PropertyMap = { ...m };
  for (const k of secretKeys) {
    if (k in out) out[k] = makeSecret(unwrapSecrets(out[k]));
  }
  return out;
}

/** Names of the top-level properties of `m` that are or contain a secret. */
export function secretKeysOf(m: PropertyMap | undefined): string[] {
  if (!m) return [];
  return Object.keys(m).filter((k) => containsSecret(m[k]));
}

/** Structural equality of two values, secrets compared by their plain values. */
export function deepEqual(a: PropertyValue | undefined, b: PropertyValue | undefined): boolean {
  const x = a === undefined ? undefined : unwrapSecrets(a);
  const y = b === undefined ? undefined : unwrapSecrets(b);
  return JSON.stringify(canonical(x)) === JSON.stringify(canonical(y));
}

function canonical(v: PropertyValue | undefined): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

/** Top-level property names whose values differ between `olds` and `news` (added, removed or changed), sorted. */
export function changedKeys(olds: PropertyMap, news: PropertyMap, exclude: string[] = [PROVIDER_KEY]): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((k) => !exclude.includes(k) && !deepEqual(olds[k], news[k])).sort();
}

/** Reads a property path like `a.b` or `a[0].b` (the `ignoreChanges` syntax, simple forms only). */
export function getPath(m: PropertyMap, path: string): PropertyValue | undefined {
  let cur: PropertyValue | undefined = m;
  for (const part of splitPath(path)) {
    if (isSecret(cur)) cur = cur.value;
    if (Array.isArray(cur) && typeof part === "number") cur = cur[part];
    else if (isObject(cur) && typeof part === "string") cur = cur[part];
    else return undefined;
  }
  return cur;
}

/** Writes (or, with `undefined`, removes) the value at a property path, creating objects on the way. */
export function setPath(m: PropertyMap, path: string, value: PropertyValue | undefined): void {
  const parts = splitPath(path);
  let cur: PropertyValue = m;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    let next: PropertyValue | undefined = Array.isArray(cur) && typeof part === "number" ? cur[part] : isObject(cur) ? cur[String(part)] : undefined;
    if (next === undefined || next === null || typeof next !== "object") {
      if (value === undefined) return;
      next = typeof parts[i + 1] === "number" ? [] : {};
      if (Array.isArray(cur) && typeof part === "number") cur[part] = next;
      else if (isObject(cur)) cur[String(part)] = next;
      else return;
    }
    cur = next;
  }
  const last = parts[parts.length - 1];
  if (Array.isArray(cur) && typeof last === "number") {
    if (value === undefined) cur.splice(last, 1);
    else cur[last] = value;
  } else if (isObject(cur)) {
    if (value === undefined) delete cur[String(last)];
    else cur[String(last)] = value;
  }
}

function splitPath(path: string): Array<string | number> {
  const parts: Array<string | number> = [];
  for (const segment of path.split(".")) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(segment);
    if (!m) {
      parts.push(segment);
      continue;
    }
    if (m[1]) parts.push(m[1]);
    for (const idx of m[2].matchAll(/\[(\d+)\]/g)) parts.push(Number(idx[1]));
  }
  return parts;
}

/** Deep copy of a JSON value. */
export function clone<T extends PropertyValue>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * Encrypts and decrypts secrets for the state file (AES-256-GCM, key derived with scrypt from a passphrase
 * and a per-state salt), in the shape Pulumi itself writes: `{sig: secret, ciphertext: "v1:..."}`.
 * The passphrase is `PULUMI_CONFIG_PASSPHRASE`, as with Pulumi's passphrase secrets provider; when it is
 * unset the passphrase is empty: the values are then only obscured, never in plain text.
 */
export class SecretsCrypter {
  /**
   * Derived keys by salt and passphrase. scrypt costs tens of milliseconds of CPU (hundreds on a busy machine), and
   * the state is saved at the start and end of every step: deriving it per save blocked the engine for seconds in a
   * 50-resource `up`, a cost the real CLI does not have (its passphrase secrets manager derives the key once per
   * stack state and caches it for the process: pkg/secrets/passphrase/manager.go getCachedSecretsManager).
   */
  private static readonly derived = new Map<string, Buffer>();
  private readonly key: Buffer;

  constructor(passphrase: string, salt: string) {
    const id = `${salt}\u0000${passphrase}`;
    let key = SecretsCrypter.derived.get(id);
    if (!key) {
      key = crypto.scryptSync(passphrase, Buffer.from(salt, "base64"), 32);
      SecretsCrypter.derived.set(id, key);
    }
    this.key = key;
  }

  /** A fresh random salt for a new state file. */
  static newSalt(): string {
    return crypto.randomBytes(16).toString("base64");
  }

  /** Replaces every in-memory secret `{sig, value}` in `v` by its encrypted form `{sig, ciphertext}`. */
  encryptDeep(v: PropertyValue): PropertyValue {
    if (isSecret(v)) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv("aes-256-gcm", this.key, iv);
      const data = Buffer.concat([cipher.update(JSON.stringify(unwrapSecrets(v.value ?? null)), "utf8"), cipher.final()]);
      const ciphertext = "v1:" + Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64");
      return { [SPECIAL_SIG_KEY]: SECRET_SIG, ciphertext };
    }
    if (Array.isArray(v)) return v.map((x) => this.encryptDeep(x));
    if (isObject(v)) {
      const out: PropertyMap = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.encryptDeep(x);
      return out;
    }
    return v;
  }

  /** Inverse of {@link encryptDeep}; fails with a clear message when the passphrase is wrong. */
  decryptDeep(v: PropertyValue): PropertyValue {
    if (isSecret(v) && typeof v.ciphertext === "string") {
      const raw = Buffer.from(v.ciphertext.replace(/^v1:/, ""), "base64");
      const decipher = crypto.createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      let text: string;
      try {
        text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
      } catch {
        throw new Error("cannot decrypt a secret in the state file: wrong PULUMI_CONFIG_PASSPHRASE?");
      }
      return makeSecret(JSON.parse(text) as PropertyValue);
    }
    if (Array.isArray(v)) return v.map((x) => this.decryptDeep(x));
    if (isObject(v)) {
      const out: PropertyMap = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.decryptDeep(x);
      return out;
    }
    return v;
  }
}
