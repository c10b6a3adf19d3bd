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

/** Which keys an object diff added, deleted and updated (each list sorted). */
export interface KeyDiff {
  adds: string[];
  deletes: string[];
  updates: string[];
}

/**
 * The diff the real engine's display lists in `[diff: ...]` when the provider gives no detailed diff (the Node
 * dynamic-provider host never does): old inputs against new inputs, internal `__` keys skipped
 * (pkg/backend/display/rows.go getDiffInfo: `Old.Inputs.DiffWithOptions(New.Inputs, IgnoreKeyFunc(IsInternalPropertyKey))`;
 * sdk/go/common/resource/properties_diff.go: a null or absent old value that gets one is an add, a value that
 * goes null or absent a delete, other changes updates).
 */
export function inputKeyDiff(olds: PropertyMap, news: PropertyMap): KeyDiff {
  const has = (v: PropertyValue | undefined) => v !== undefined && v !== null;
  const diff: KeyDiff = { adds: [], deletes: [], updates: [] };
  for (const k of [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort()) {
    if (k.startsWith("__") || deepEqual(olds[k], news[k])) continue;
    if (!has(olds[k])) {
      if (has(news[k])) diff.adds.push(k);
    } else if (!has(news[k])) diff.deletes.push(k);
    else diff.updates.push(k);
  }
  return diff;
}

/** One element of a property path: a key, or an array index (`"*"` is the wildcard, whichever way it was written). */
export type PathElement = string | number;

/**
 * Parses an `ignoreChanges` path as the real engine does (pulumi/pulumi sdk/go/common/resource/properties_path.go
 * `ParsePropertyPath`, the non-strict form `processIgnoreChanges` uses): `a.b`, `a[0]`, `a["key with ."]`, `a[*]`;
 * a bare name runs to the next `.` or `[` (so `*` and `a-b` are names); `[*]`, `["*"]` and `*` all give the key
 * `"*"`; a `.` right before a `[` is tolerated. Returns undefined for what Go refuses (a path starting or ending
 * with `.`, a missing closing quote or bracket, an index that is not a 64-bit integer); the engine then skips the
 * path without a word (step_generator.go processIgnoreChanges: `if err != nil { continue }`).
 */
export function parsePropertyPath(path: string): PathElement[] | undefined {
  const elements: PathElement[] = [];
  if (path.startsWith(".")) return undefined;
  let rest = path;
  while (rest.length > 0) {
    if (rest[0] === ".") {
      rest = rest.slice(1);
      if (rest.length === 0) return undefined;
    } else if (rest[0] === "[") {
      let element: PathElement;
      if (rest.length > 1 && rest[1] === '"') {
        let key = "";
        let i = 2;
        for (;;) {
          if (i >= rest.length) return undefined; // missing closing quote
          if (rest[i] === '"') {
            i++;
            break;
          } else if (rest[i] === "\\" && i + 1 < rest.length && rest[i + 1] === '"') {
            key += '"';
            i += 2;
          } else {
            key += rest[i];
            i++;
          }
        }
        if (i >= rest.length || rest[i] !== "]") return undefined; // missing closing bracket
        element = key;
        rest = rest.slice(i);
      } else {
        const close = rest.indexOf("]");
        if (close === -1) return undefined;
        const segment = rest.slice(1, close);
        if (segment === "*") element = "*";
        else {
          // strconv.ParseInt(segment, 10, 0): optional sign, decimal digits, within int64.
          if (!/^[+-]?[0-9]+$/.test(segment)) return undefined;
          const big = BigInt(segment);
          if (big > 9223372036854775807n || big < -9223372036854775808n) return undefined;
          element = Number(big);
        }
        rest = rest.slice(close);
      }
      elements.push(element);
      rest = rest.slice(1);
    } else {
      let i = 0;
      while (i < rest.length && rest[i] !== "." && rest[i] !== "[") i++;
      elements.push(rest.slice(0, i));
      rest = rest.slice(i);
    }
  }
  return elements;
}

/** Unwraps nested secret wrappers; `secret` says whether there was one (properties_path.go unwrapSecrets). */
function unwrapSecretsFlag(v: PropertyValue | undefined): { value: PropertyValue | undefined; secret: boolean } {
  let secret = false;
  while (isSecret(v)) {
    secret = true;
    v = v.value ?? null;
  }
  return { value: v, secret };
}

/** The old value put into new: a copy, made secret when its old context was secret and the new one is not. */
function resetValue(v: PropertyValue, oldIsSecret: boolean, newIsSecret: boolean): PropertyValue {
  const copy = clone(v);
  return oldIsSecret && !newIsSecret ? makeSecret(copy) : copy;
}

/**
 * properties_path.go `reset`, line by line (a missing value, Go's zero PropertyValue, is `undefined` here; an
 * unknown is a string, neither object nor array, as Go's Computed value). Changes `neu` in place; false is a path
 * error (the engine reports it and keeps going; whatever was reset before the error stays reset).
 */
function reset(p: PathElement[], oldIn: PropertyValue | undefined, newIn: PropertyValue | undefined, oldSecret: boolean, newSecret: boolean): boolean {
  if (p.length === 0) return false;
  const o = unwrapSecretsFlag(oldIn);
  const n = unwrapSecretsFlag(newIn);
  const old = o.value;
  const neu = n.value;
  const oldIsSecret = oldSecret || o.secret;
  const newIsSecret = newSecret || n.secret;
  const key = p[0]!;
  if (typeof key === "number") {
    if (key < 0) return false; // always a path error
    if (p.length === 1) {
      if (!Array.isArray(old) && !Array.isArray(neu)) return true; // neither is an array: nothing to reset
      if (!Array.isArray(old) || !Array.isArray(neu)) return false;
      if (key >= old.length && key >= neu.length) return true; // absent from both: the same
      if (key >= old.length || key >= neu.length) return false; // an array element cannot be added or removed
      neu[key] = resetValue(old[key]!, oldIsSecret, newIsSecret);
      return true;
    }
    if (!Array.isArray(old) || !Array.isArray(neu)) return !Array.isArray(old) && !Array.isArray(neu);
    if (key >= old.length || key >= neu.length) return false;
    return reset(p.slice(1), old[key], neu[key], oldIsSecret, newIsSecret);
  }
  if (key === "*") {
    if (p.length === 1) {
      if (isObject(neu)) {
        if (isObject(old)) {
          // Every key of old is copied into new, and every key of new that old lacks is deleted.
          for (const k of Object.keys(old)) neu[k] = resetValue(old[k]!, oldIsSecret, newIsSecret);
          for (const k of Object.keys(neu)) if (!(k in old)) delete neu[k];
        }
        return true;
      }
      if (Array.isArray(neu)) {
        if (Array.isArray(old)) {
          for (let i = 0; i < old.length && i < neu.length; i++) neu[i] = resetValue(old[i]!, oldIsSecret, newIsSecret);
          if (old.length !== neu.length) return false;
        }
        return true;
      }
      return false;
    }
    if (isObject(old) && isObject(neu)) {
      // Go walks old's keys in map order; here in insertion order (it matters only for what a path error leaves).
      for (const k of Object.keys(old)) {
        if (!(k in neu)) return false;
        if (!reset(p.slice(1), old[k], neu[k], oldIsSecret, newIsSecret)) return false;
      }
      return true;
    }
    if (Array.isArray(old) && Array.isArray(neu)) {
      for (let i = 0; i < old.length && i < neu.length; i++) {
        if (!reset(p.slice(1), old[i], neu[i], oldIsSecret, newIsSecret)) return false;
      }
      return old.length === neu.length;
    }
    return false;
  }
  if (p.length === 1) {
    // The leaf: new takes old's value; if old has none (or is no object), the key is deleted from new.
    if (isObject(old) && key in old) {
      if (!isObject(neu)) return false;
      neu[key] = resetValue(old[key]!, oldIsSecret, newIsSecret);
    } else if (isObject(neu)) {
      delete neu[key];
    }
    return true;
  }
  if (!isObject(old) || !isObject(neu)) return !isObject(old) && !isObject(neu);
  const hasNew = key in neu;
  const hasOld = key in old;
  if (hasOld && !hasNew) return false; // old has it, new does not: the leaf cannot be reached in new
  if (!hasOld && !hasNew) return true;
  return reset(p.slice(1), hasOld ? old[key] : undefined, neu[key], oldIsSecret, newIsSecret);
}

/**
 * `ignoreChanges` as the real engine applies it (step_generator.go processIgnoreChanges): a copy of `inputs` in
 * which each path is reset to its value in `oldInputs` (properties_path.go `PropertyPath.Reset`). `invalid` lists
 * the paths that hit a path error (the engine says "cannot ignore changes in added or removed elements of the
 * path"); unparsable paths are skipped silently, as there. Notable rules of Reset: a leaf missing from old is
 * DELETED from new; `*` as the leaf copies every key of old and deletes every key of new that old lacks (hidden
 * inputs included); a parent present in new but missing in old is walked as a missing value, so the leaf below it
 * is deleted (`a.b`) or, one level deeper (`a.b.c`), the path is an error and new's value stays.
 */
export function processIgnoreChanges(inputs: PropertyMap, oldInputs: PropertyMap, paths: readonly string[]): { inputs: PropertyMap; invalid: string[] } {
  const out = clone(inputs);
  const invalid: string[] = [];
  for (const path of paths) {
    const parsed = parsePropertyPath(path);
    if (!parsed) continue;
    if (!reset(parsed, oldInputs, out, false, false)) invalid.push(path);
  }
  return { inputs: out, invalid };
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
