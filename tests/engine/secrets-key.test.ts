/**
 * The local engine's secrets crypter keeps derived keys per salt and passphrase (values.ts SecretsCrypter), as the
 * real CLI caches its passphrase secrets manager per state (pkg/secrets/passphrase/manager.go
 * getCachedSecretsManager): deriving the key (scrypt) on every checkpoint blocked the engine for seconds in a
 * 50-resource up. What must not change with the cache: a wrong passphrase still fails, another stack's salt still
 * gets its own key. In-process: no engine run needed.
 */
import { SecretsCrypter, SECRET_SIG, SPECIAL_SIG_KEY } from "../../tools/local-engine/values";

describe("secrets key derivation: the per-salt-and-passphrase cache never answers for another stack or passphrase", () => {
  it("a second crypter of the same stack reads what the first saved; a wrong passphrase or another salt does not", () => {
    const salt = SecretsCrypter.newSalt();
    const saved = new SecretsCrypter("pass-1", salt).encryptDeep({ [SPECIAL_SIG_KEY]: SECRET_SIG, value: "s3cret" });
    expect(new SecretsCrypter("pass-1", salt).decryptDeep(saved)).toMatchObject({ value: "s3cret" });
    // the cached key of pass-1 must not answer for pass-2 (same salt) or for another state's salt
    expect(() => new SecretsCrypter("pass-2", salt).decryptDeep(saved)).toThrow(/passphrase/i);
    expect(() => new SecretsCrypter("pass-1", SecretsCrypter.newSalt()).decryptDeep(saved)).toThrow(/passphrase/i);
  });
});
