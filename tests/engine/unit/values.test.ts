/**
 * In-process tests of tools/local-engine/values.ts: how secrets, unknowns, property paths and diffs travel
 * between the program, the engine, the provider host and the state file. No processes are started.
 */
import {
  PROVIDER_KEY,
  PropertyMap,
  SECRET_SIG,
  SPECIAL_SIG_KEY,
  SecretsCrypter,
  UNKNOWN_VALUE,
  changedKeys,
  clone,
  containsSecret,
  containsUnknown,
  deepEqual,
  getPath,
  isSecret,
  makeSecret,
  maskSecrets,
  secretKeysOf,
  setPath,
  unwrapMap,
  unwrapSecrets,
  wrapSecretKeys,
} from "../../../tools/local-engine/values";

const secret = (value: PropertyMap[string]): PropertyMap => ({ [SPECIAL_SIG_KEY]: SECRET_SIG, value });

describe("secrets and unknowns", () => {
  test("a secret is recognised by its signature only, in memory and state forms", () => {
    expect(isSecret(secret("pw"))).toBe(true);
    expect(isSecret({ [SPECIAL_SIG_KEY]: SECRET_SIG, ciphertext: "v1:x" })).toBe(true);
    expect(isSecret({ [SPECIAL_SIG_KEY]: "other-signature", value: "pw" })).toBe(false);
    expect(isSecret({ value: "pw" })).toBe(false);
    expect(isSecret(null)).toBe(false);
    expect(isSecret([SPECIAL_SIG_KEY])).toBe(false);
    expect(isSecret(SECRET_SIG)).toBe(false);
    expect(isSecret(undefined)).toBe(false);
  });

  test("makeSecret wraps once: a secret is not wrapped again", () => {
    expect(makeSecret("pw")).toEqual(secret("pw"));
    expect(makeSecret(secret("pw"))).toEqual(secret("pw"));
  });

  test("containsSecret and containsUnknown look inside lists and objects", () => {
    expect(containsSecret({ a: [1, { b: secret(2) }] })).toBe(true);
    expect(containsSecret([secret(1)])).toBe(true);
    expect(containsSecret({ a: [1, { b: 2 }] })).toBe(false);
    expect(containsSecret({ plain: 1, s: secret("x") })).toBe(true);
    expect(containsUnknown({ known: 1, u: UNKNOWN_VALUE })).toBe(true);
    expect(containsSecret("x")).toBe(false);
    expect(containsSecret(undefined)).toBe(false);
    expect(containsUnknown(UNKNOWN_VALUE)).toBe(true);
    expect(containsUnknown({ a: [1, { b: UNKNOWN_VALUE }] })).toBe(true);
    expect(containsUnknown([UNKNOWN_VALUE])).toBe(true);
    expect(containsUnknown({ a: [1, { b: "known" }] })).toBe(false);
    expect(containsUnknown(undefined)).toBe(false);
  });

  test("unwrapSecrets removes every wrapper, nested ones too; a wrapper without value is null", () => {
    expect(unwrapSecrets({ a: secret(secret("pw")), b: [secret(1), 2], c: "x" })).toEqual({ a: "pw", b: [1, 2], c: "x" });
    expect(unwrapSecrets({ [SPECIAL_SIG_KEY]: SECRET_SIG })).toBeNull();
    expect(unwrapMap({ k: secret({ n: secret(3) }) })).toEqual({ k: { n: 3 } });
  });

  test("maskSecrets shows secrets as [secret] wherever they are", () => {
    expect(maskSecrets({ a: secret("pw"), b: [secret(1), 2], c: { d: secret(true), e: "plain" } })).toEqual({
      a: "[secret]",
      b: ["[secret]", 2],
      c: { d: "[secret]", e: "plain" },
    });
  });

  test("wrapSecretKeys makes the named top-level properties secret as a whole; absent names add nothing", () => {
    const m: PropertyMap = { a: { inner: secret("x"), plain: 1 }, b: 2 };
    const out = wrapSecretKeys(m, ["a", "missing"]);
    expect(out).toEqual({ a: secret({ inner: "x", plain: 1 }), b: 2 });
    expect("missing" in out).toBe(false);
    expect(m.b).toBe(2); // the input is not changed
    expect(m.a).toEqual({ inner: secret("x"), plain: 1 });
  });

  test("secretKeysOf names the properties that are or contain a secret", () => {
    expect(secretKeysOf({ a: secret(1), b: { c: [secret(2)] }, d: 3 })).toEqual(["a", "b"]);
    expect(secretKeysOf(undefined)).toEqual([]);
  });
});

describe("comparison", () => {
  test("deepEqual ignores key order and secrecy, not values, kinds or absence", () => {
    expect(deepEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(deepEqual(secret("pw"), "pw")).toBe(true);
    expect(deepEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: "1" })).toBe(false);
    expect(deepEqual(null, undefined)).toBe(false);
    expect(deepEqual(undefined, undefined)).toBe(true);
    expect(deepEqual(undefined, "x")).toBe(false);
  });

  test("changedKeys lists added, removed and changed properties, sorted, without the serialized provider", () => {
    const olds = { [PROVIDER_KEY]: "p1", size: 1, zone: "a", gone: true, same: { x: 1 } };
    const news = { [PROVIDER_KEY]: "p2", size: 2, zone: "a", added: 1, same: { x: 1 } };
    expect(changedKeys(olds, news)).toEqual(["added", "gone", "size"]);
    expect(changedKeys(olds, news, [])).toEqual([PROVIDER_KEY, "added", "gone", "size"]);
    expect(changedKeys({ b: 1, a: 1 }, { b: 2, a: 2 })).toEqual(["a", "b"]);
  });

  test("clone is a deep copy", () => {
    const v: PropertyMap = { a: { b: [1] } };
    const c = clone(v);
    expect(c).toEqual(v);
    (c.a as PropertyMap).b = [2];
    expect(v).toEqual({ a: { b: [1] } });
  });
});

describe("property paths (ignoreChanges)", () => {
  const m = (): PropertyMap => ({ a: { b: 1, list: [{ c: "x" }, { c: "y" }] }, s: secret({ inner: 5 }), top: 3 });

  test("getPath reads nested keys, list indexes and through secrets; a missing step is undefined", () => {
    expect(getPath(m(), "top")).toBe(3);
    expect(getPath(m(), "a.b")).toBe(1);
    expect(getPath(m(), "a.list[1].c")).toBe("y");
    expect(getPath(m(), "a.list[1]")).toEqual({ c: "y" });
    expect(getPath(m(), "s.inner")).toBe(5);
    expect(getPath(m(), "a.list.c")).toBeUndefined(); // a key into a list
    expect(getPath(m(), "a[0]")).toBeUndefined(); // an index into an object
    expect(getPath(m(), "top.x")).toBeUndefined();
    expect(getPath(m(), "nope.x")).toBeUndefined();
    expect(getPath({ o: { "0": "key zero" } }, "o[0]")).toBeUndefined(); // an index is not a key
    expect(getPath({ "": ["x"] }, "[0]")).toBeUndefined(); // a map has no index
    expect(getPath({ m: [[1, 2]] }, "m[0][1]")).toBe(2);
    const long = Array.from({ length: 13 }, (_, i) => i * 10);
    expect(getPath({ l: long }, "l[12]")).toBe(120);
  });

  test("setPath writes nested values, creating objects and lists on the way", () => {
    const v = m();
    setPath(v, "a.b", 2);
    setPath(v, "a.list[0].c", "z");
    setPath(v, "new.deep", true);
    setPath(v, "arr[1].k", "v");
    expect(v.a).toEqual({ b: 2, list: [{ c: "z" }, { c: "y" }] });
    expect(v.new).toEqual({ deep: true });
    expect(Array.isArray(v.arr)).toBe(true);
    expect(JSON.stringify(v.arr)).toBe('[null,{"k":"v"}]');
    setPath(v, "top", 4);
    expect(v.top).toBe(4);
    setPath(v, "top.x", 1); // replaces a scalar on the way by an object
    expect(v.top).toEqual({ x: 1 });
  });

  test("setPath through a null makes an object there", () => {
    const v: PropertyMap = { a: null };
    setPath(v, "a.b", 1);
    expect(v).toEqual({ a: { b: 1 } });
  });

  test("setPath with undefined removes, without creating anything missing", () => {
    const v = m();
    setPath(v, "a.b", undefined);
    expect("b" in (v.a as PropertyMap)).toBe(false);
    setPath(v, "a.list[0]", undefined);
    expect((v.a as PropertyMap).list).toEqual([{ c: "y" }]);
    setPath(v, "missing.deep", undefined);
    expect("missing" in v).toBe(false);
    setPath(v, "top.x", undefined);
    expect(v.top).toBe(3);
  });

  test("a path segment that is not a plain key or index is used as a key as written", () => {
    const v: PropertyMap = {};
    setPath(v, "a]b", 1);
    expect(v).toEqual({ "a]b": 1 });
    expect(getPath(v, "a]b")).toBe(1);
  });
});

describe("SecretsCrypter (secrets on disk)", () => {
  const salt = SecretsCrypter.newSalt();

  test("a fresh salt is 16 random bytes", () => {
    expect(Buffer.from(salt, "base64")).toHaveLength(16);
    expect(SecretsCrypter.newSalt()).not.toBe(salt);
  });

  test("secrets are encrypted as v1 ciphertext, nested ones too, and decrypt back as secrets", () => {
    const c = new SecretsCrypter("pass", salt);
    const value: PropertyMap = { pw: secret("hunter2"), list: [secret({ n: 1 })], plain: "visible", deep: { s: secret(secret("x")) } };
    const enc = c.encryptDeep(value) as PropertyMap;
    const text = JSON.stringify(enc);
    expect(text).not.toContain("hunter2");
    expect(text).toContain("visible");
    expect((enc.pw as PropertyMap).ciphertext).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    expect("value" in (enc.pw as PropertyMap)).toBe(false);
    expect(c.decryptDeep(enc)).toEqual({ pw: secret("hunter2"), list: [secret({ n: 1 })], plain: "visible", deep: { s: secret("x") } });
    // A fresh nonce each time: equal secrets do not give equal ciphertexts.
    expect((c.encryptDeep(secret("a")) as PropertyMap).ciphertext).not.toBe((c.encryptDeep(secret("a")) as PropertyMap).ciphertext);
  });

  test("another passphrase or salt cannot decrypt", () => {
    const enc = new SecretsCrypter("pass", salt).encryptDeep({ pw: secret("x") });
    expect(() => new SecretsCrypter("other", salt).decryptDeep(enc)).toThrow(
      "cannot decrypt a secret in the state file: wrong PULUMI_CONFIG_PASSPHRASE?",
    );
    expect(() => new SecretsCrypter("pass", SecretsCrypter.newSalt()).decryptDeep(enc)).toThrow(/wrong PULUMI_CONFIG_PASSPHRASE/);
  });

  test("a tampered ciphertext is refused, not decrypted to something else", () => {
    const c = new SecretsCrypter("", salt);
    const enc = c.encryptDeep(secret("abc")) as PropertyMap;
    const raw = Buffer.from(String(enc.ciphertext).slice(3), "base64");
    raw[raw.length - 1] ^= 1;
    expect(() => c.decryptDeep({ ...enc, ciphertext: "v1:" + raw.toString("base64") })).toThrow(/wrong PULUMI_CONFIG_PASSPHRASE/);
  });

  test("a secret still in memory form, and plain values, pass decryption unchanged", () => {
    const c = new SecretsCrypter("", salt);
    expect(c.decryptDeep({ a: secret("x"), b: [1, "s"], n: null })).toEqual({ a: secret("x"), b: [1, "s"], n: null });
  });
});
