/**
 * Test helpers for Pulumi's passphrase secrets provider format, shared by the engine's config suites.
 */
import * as crypto from "node:crypto";

// --- An independent implementation of the passphrase provider's format, written here from the Go source
// (crypt.go NewSymmetricCrypterFromPassphrase / encryptAES256GCGM, passphrase/manager.go
// NewPassphraseSecretsManager), so the engine's decryption is checked against something it does not share.

/** `v1:<base64 nonce>:<base64 ciphertext+tag>`, as symmetricCrypter.EncryptValue writes it. */
export function pulumiEncrypt(key: Buffer, plaintext: string): string {
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/** A new `encryptionsalt` for a passphrase, and its key (8 random salt bytes, check value "pulumi"). */
export function newEncryptionSalt(passphrase: string): { encryptionSalt: string; key: Buffer } {
  const salt = crypto.randomBytes(8);
  const key = crypto.pbkdf2Sync(passphrase, salt, 1_000_000, 32, "sha256");
  return { encryptionSalt: `v1:${salt.toString("base64")}:${pulumiEncrypt(key, "pulumi")}`, key };
}
