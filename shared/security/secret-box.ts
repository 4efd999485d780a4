import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Encrypts secrets the service must read back (webhook signing secrets) before they are stored:
 * AES-256-GCM with a key derived (SHA-256) from key material held outside the table (a generated
 * Secrets Manager secret in AWS, a file under .data/ locally), so a copy of the table alone does
 * not reveal them. Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url); the version leaves room
 * for a key change.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/** At least this many characters of random key material (e.g. 64 generated alphanumerics). */
export const MIN_KEY_MATERIAL_LENGTH = 32;

export function createSecretBox(keyMaterial: string): SecretBox {
  if (keyMaterial.length < MIN_KEY_MATERIAL_LENGTH) throw new Error(`The key material must be at least ${MIN_KEY_MATERIAL_LENGTH} characters`);
  const key = createHash('sha256').update(`secret-box:v1:${keyMaterial}`).digest();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('Unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** Constant-time comparison of two strings (shared secrets presented in headers). */
export function safeEqual(presented: string, expected: string): boolean {
  // HMAC both sides first, so lengths never leak and timingSafeEqual gets equal-length input.
  const key = randomBytes(32);
  const a = createHmac('sha256', key).update(presented).digest();
  const b = createHmac('sha256', key).update(expected).digest();
  return timingSafeEqual(a, b);
}
