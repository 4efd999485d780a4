import { createHash } from 'node:crypto';

/** DynamoDB's limits on a key attribute's value, in UTF-8 bytes. */
export const PARTITION_KEY_MAX_BYTES = 2048;
export const SORT_KEY_MAX_BYTES = 1024;

/**
 * A key that ends in text from outside (an imported URL, a provider's message id): the text as it
 * is while the key fits DynamoDB's limit, else its SHA-256. Validation bounds such text in
 * characters, and a character can take 4 bytes, so an accepted value could otherwise fail the write
 * (a 500, or a provider event retried until it is dead-lettered). Every key that fitted before keeps
 * its value; the items carry the text itself in an attribute.
 */
export function keyEndingIn(fixed: string, text: string, maxBytes: number): string {
  const plain = `${fixed}${text}`;
  if (Buffer.byteLength(plain, 'utf8') <= maxBytes) return plain;
  return `${fixed}~sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
