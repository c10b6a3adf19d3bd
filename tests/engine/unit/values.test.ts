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
  isSecret,
  makeSecret,
  maskSecrets,
  parsePropertyPath,
  processIgnoreChanges,
  secretKeysOf,
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

/**
 * ignoreChanges as the real engine applies it. The table is pulumi/pulumi sdk/go/common/resource/properties_path_test.go
 * TestReset, case by case (same names; Go's PropertyPath literals written as the ignoreChanges strings that parse to
 * them, so parsePropertyPath is exercised too; MakeSecret is `secret(...)`). A nil expectation there means Reset
 * returns false (here: the path is listed as invalid) and new is left as it was.
 */
describe("processIgnoreChanges = properties_path.go Reset (TestReset's table)", () => {
  type Case = [name: string, path: string, old: PropertyMap, neu: PropertyMap, expected: PropertyMap | null];
  const cases: Case[] = [
    ["Missing key, not in object", "missing", { root: 1 }, { root: 2 }, { root: 2 }],
    ["Missing key, not an object", "root.missing", { root: 1 }, { root: 2 }, { root: 2 }],
    ["Missing index, changed from an object", "root.nested", { root: { nested: 1 } }, { root: 2 }, null],
    ["Missing index, changed to an object", "root.nested", { root: 1 }, { root: { nested: 2 } }, { root: {} }],
    ["Missing key along path, not in object", "missing.path", { root: 1 }, { root: 2 }, { root: 2 }],
    ["Missing key along path, not an object", "root.missing.path", { root: 1 }, { root: 2 }, { root: 2 }],
    ["Missing index, not in array", "array[1]", { array: [1] }, { array: [1] }, { array: [1] }],
    ["Missing index, not an array", "root[0]", { root: 1 }, { root: 2 }, { root: 2 }],
    ["Missing index, changed from an array", "root[0]", { root: [1] }, { root: 2 }, null],
    ["Missing index, changed to an array", "root[0]", { root: 1 }, { root: [2] }, null],
    ["Invalid index, not in array", "array[-1]", { array: [1] }, { array: [1] }, null],
    ["Invalid index, not an array", "root[-1]", { root: 1 }, { root: 2 }, null],
    ["Index out of bound in old", "root[1]", { root: [2] }, { root: [3, 4] }, null],
    ["Index out of bound in new", "root[1]", { root: [1, 2] }, { root: [3] }, null],
    ["Missing index along path", "root[0].other", { root: { nested: 1 } }, { root: { nested: 2 } }, { root: { nested: 2 } }],
    ["Index out of bound in old along path", "root[1].nested", { root: [{ nested: 1 }] }, { root: [{ nested: 3 }, { nested: 4 }] }, null],
    ["Index out of bound in new along path", "root[1].nested", { root: [{ nested: 1 }, { nested: 2 }] }, { root: [{ nested: 3 }] }, null],
    ["Single path element", "root", { root: 1 }, { root: 2 }, { root: 1 }],
    ["Nested path element, changed", "root.nested", { root: { nested: 1 } }, { root: { nested: 2 } }, { root: { nested: 1 } }],
    ["Nested path element, added", "root.nested", { root: {} }, { root: { nested: 2 } }, { root: {} }],
    ["Nested path element, removed", "root.nested", { root: { nested: 1 } }, { root: {} }, { root: { nested: 1 } }],
    ["Nested path element, fully removed", "root.nested", { root: { nested: 1 } }, {}, null],
    ["Nested path element, nested added", "root.nested", {}, { root: { nested: 2 } }, { root: {} }],
    ["Nested path element, nested removed", "root.nested", { root: { nested: 1 } }, {}, null],
    ["Array index", "array[0]", { array: [1] }, { array: [2] }, { array: [1] }],
    ["Array index, along path", "array[0].item", { array: [{ item: 1 }] }, { array: [{ item: 2 }] }, { array: [{ item: 1 }] }],
    ["Array index, added", "array[0]", { array: [] }, { array: [2] }, null],
    ["Array index, removed", "array[0]", { array: [1] }, { array: [] }, null],
    ["Single wildcard at root", "*", { root: 1 }, { root: 2 }, { root: 1 }],
    ["Wildcard followed by path element", "*.nested", { root: { nested: 1 } }, { root: { nested: 2 } }, { root: { nested: 1 } }],
    ["Wildcard in array followed by path element", "root[*].nested", { root: [{ nested: 1 }, { nested: 2 }] }, { root: [{ nested: 3 }, { nested: 4 }] }, { root: [{ nested: 1 }, { nested: 2 }] }],
    ["Nested wildcard", "root.*", { root: { nested: 1 } }, { root: { nested: 2 } }, { root: { nested: 1 } }],
    ["Nested wildcard in array", "root[*]", { root: [1, 2] }, { root: [3, 4] }, { root: [1, 2] }],
    ["Nested wildcard, added", "root.*", { root: {} }, { root: { nested: 2 } }, { root: {} }],
    ["Nested wildcard, removed", "root.*", { root: { nested: 2 } }, { root: {} }, { root: { nested: 2 } }],
    ["Nested wildcard, change of type (array)", "root.*", { root: [1] }, { root: { nested: 2 } }, { root: { nested: 2 } }],
    ["Nested wildcard, change of type (object)", "root.*", { root: { nested: 2 } }, { root: [1] }, { root: [1] }],
    ["Nested wildcard, change of type (number)", "root.*", { root: { nested: 2 } }, { root: 1 }, null],
    ["Untraversable in old wildcard followed by path element", "root.*.nested", { root: 1 }, { root: { nested: 2 } }, null],
    ["Untraversable in new (not an object) wildcard followed by path element", "root.*.nested", { root: { nested: 1 } }, { root: 2 }, null],
    ["Untraversable in new (missing) wildcard followed by path element", "root.*.nested", { root: { nested: 1 } }, { root: {} }, null],
    ["Nested object wildcard index reset fails", "root.*[0]", { root: { passes: 1, fails: [1] } }, { root: { passes: 2, fails: [] } }, null],
    ["Nested array wildcard, new array is shorter fails", "root.array[*]", { root: { array: [1] } }, { root: { array: [] } }, null],
    ["Nested array wildcard index reset fails", "root[*][0]", { root: [1, [1]] }, { root: [2, []] }, null],
    ["Nested array wildcard index, old array is longer fails", "root[*][0]", { root: [1, 2] }, { root: secret([3]) }, null],
    ["Nested array wildcard index, new array is longer fails", "root[*][0]", { root: [1] }, { root: secret([3, 4]) }, null],
    ["Nested path, secret old", "root.secret", { root: secret({ secret: 1 }) }, { root: { secret: 2 } }, { root: { secret: secret(1) } }],
    ["Nested path, secret new", "root.secret", { root: { secret: 1 } }, { root: secret({ secret: 2 }) }, { root: secret({ secret: 1 }) }],
    ["Nested path, secret both", "root.secret", { root: secret({ secret: 1 }) }, { root: secret({ secret: 2 }) }, { root: secret({ secret: 1 }) }],
    ["Nested array, secret old", "root[0]", { root: secret([1, 2]) }, { root: [3, 4] }, { root: [secret(1), 4] }],
    ["Nested array, secret new", "root[0]", { root: [1, 2] }, { root: secret([3, 4]) }, { root: secret([1, 4]) }],
    ["Nested array, secret both", "root[0]", { root: secret([1, 2]) }, { root: secret([3, 4]) }, { root: secret([1, 4]) }],
  ];

  test.each(cases)("%s (%s)", (_name, path, old, neu, expected) => {
    const before = clone(neu);
    const { inputs, invalid } = processIgnoreChanges(neu, old, [path]);
    expect(neu).toEqual(before); // the program's inputs are not touched: the result is a copy
    if (expected === null) {
      expect(invalid).toEqual([path]);
      expect(inputs).toEqual(before);
    } else {
      expect(invalid).toEqual([]);
      expect(inputs).toEqual(expected);
    }
  });

  test('"*" as the whole path: every old key copied, every new key old lacks deleted (hidden inputs too)', () => {
    // The finding: an option added to an existing resource, whose old inputs have no __ignoreChanges.
    const old = { cpu: 1, memory: 2, __provider: "p" };
    const neu = { cpu: 2, hostname: "h", __provider: "p", __ignoreChanges: ["*"] };
    expect(processIgnoreChanges(neu, old, ["*"]).inputs).toEqual({ cpu: 1, memory: 2, __provider: "p" });
    // The same rule written as an index or a quoted key (ParsePropertyPath gives the key "*" for all three).
    for (const path of ["[*]", '["*"]']) expect(processIgnoreChanges(neu, old, [path]).inputs).toEqual({ cpu: 1, memory: 2, __provider: "p" });
    // Top-level names instead of "*": each listed key takes old's value or, absent from old, is deleted; unlisted
    // keys keep the program's value.
    expect(processIgnoreChanges(neu, old, ["cpu", "memory", "hostname"]).inputs).toEqual({ cpu: 1, memory: 2, __provider: "p", __ignoreChanges: ["*"] });
  });

  test("a parent that new has and old lacks: the leaf below it is deleted; one level deeper it is a path error and new's value stays", () => {
    expect(processIgnoreChanges({ a: { b: 1 } }, {}, ["a.b"])).toEqual({ inputs: { a: {} }, invalid: [] });
    expect(processIgnoreChanges({ a: { b: { c: 1 } } }, {}, ["a.b.c"])).toEqual({ inputs: { a: { b: { c: 1 } } }, invalid: ["a.b.c"] });
    // An unknown (preview) is neither object nor array, as Go's Computed value.
    expect(processIgnoreChanges({ a: UNKNOWN_VALUE }, { a: { b: 1 } }, ["a.b"])).toEqual({ inputs: { a: UNKNOWN_VALUE }, invalid: ["a.b"] });
  });

  test("several paths: each applied in turn; path errors are listed, unparsable paths skipped without a word", () => {
    const r = processIgnoreChanges({ a: 2, l: [1, 2], t: { x: 2 } }, { a: 1, l: [0], t: { x: 1 } }, ["a", "l[1]", ".bad", "t[", "t.x"]);
    expect(r).toEqual({ inputs: { a: 1, l: [1, 2], t: { x: 1 } }, invalid: ["l[1]"] });
  });

  test("parsePropertyPath = properties_path.go ParsePropertyPath (non-strict)", () => {
    expect(parsePropertyPath("root")).toEqual(["root"]);
    expect(parsePropertyPath("root.nested.array[0].double[1]")).toEqual(["root", "nested", "array", 0, "double", 1]);
    expect(parsePropertyPath('root["double"].nest')).toEqual(["root", "double", "nest"]);
    expect(parsePropertyPath('root["key with \\"escaped\\" quotes"]')).toEqual(["root", 'key with "escaped" quotes']);
    expect(parsePropertyPath('["root key with a ."][100]')).toEqual(["root key with a .", 100]);
    expect(parsePropertyPath("root.array[*].field")).toEqual(["root", "array", "*", "field"]);
    expect(parsePropertyPath('root.array["*"].field')).toEqual(["root", "array", "*", "field"]);
    expect(parsePropertyPath("*")).toEqual(["*"]);
    expect(parsePropertyPath("foo-bar")).toEqual(["foo-bar"]); // any run of characters up to . or [ is a name
    expect(parsePropertyPath("a.[0]")).toEqual(["a", 0]); // tolerated outside strict mode
    expect(parsePropertyPath("a[+1]")).toEqual(["a", 1]); // strconv.ParseInt accepts a sign
    expect(parsePropertyPath("")).toEqual([]); // parses; Reset of an empty path is a path error
    expect(processIgnoreChanges({ a: 1 }, { a: 2 }, [""]).invalid).toEqual([""]);
    for (const bad of [".a", "a.", "a[", "a[x]", "a[]", 'a["x', 'a["x"', "a[9223372036854775808]"]) expect(parsePropertyPath(bad)).toBeUndefined();
    expect(parsePropertyPath("a[9223372036854775807]")).toEqual(["a", 9223372036854775807]);
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
