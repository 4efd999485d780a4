import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ApiKeyCredential,
  formatKey,
  generateKeyMaterial,
  hashSecret,
  lastUsedIsStale,
  parseKey,
  secretMatches,
} from '../../../shared/domain/api-keys/api-key';

describe('API key material', () => {
  it('generates a 12-hex prefix and a 43-character secret, and stores only its SHA-256', () => {
    const material = generateKeyMaterial();
    expect(material.prefix).toMatch(/^[0-9a-f]{12}$/);
    expect(material.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(material.secretHash).toBe(createHash('sha256').update(material.secret).digest('hex'));
    expect(hashSecret(material.secret)).toBe(material.secretHash);
    expect(material.secretHash).not.toContain(material.secret);
    expect(generateKeyMaterial().secret).not.toBe(material.secret);
  });

  it('parses only keys of our format', () => {
    const { prefix, secret } = generateKeyMaterial();
    expect(parseKey(formatKey(prefix, secret))).toEqual({ prefix, secret });
    // Upper case: a prefix with a hex letter (a random one has none about once in 280 draws, and upper-cased stays valid).
    const upper = `A${prefix.slice(1).toUpperCase()}`;
    for (const bad of ['', 'nodot', `${prefix}.`, `.${secret}`, `${upper}.${secret}`, `${prefix}.${secret}x`, `${prefix}x.${secret}`]) {
      expect(parseKey(bad), bad).toBeUndefined();
    }
  });

  it('matches the right secret only', () => {
    const { secret, secretHash } = generateKeyMaterial();
    expect(secretMatches(secret, secretHash)).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}A`, secretHash)).toBe(secret.endsWith('A'));
    expect(secretMatches(secret, 'short')).toBe(false);
  });

  it('writes last_used at most once a minute', () => {
    const credential = { lastUsedWrittenAt: '2026-11-21T12:00:00.000Z' } as ApiKeyCredential;
    expect(lastUsedIsStale({} as ApiKeyCredential, new Date())).toBe(true);
    expect(lastUsedIsStale(credential, new Date('2026-11-21T12:00:59.999Z'))).toBe(false);
    expect(lastUsedIsStale(credential, new Date('2026-11-21T12:01:00.000Z'))).toBe(true);
  });
});
