import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../shared/security/password';
import { SessionTokens } from '../../../shared/security/session-tokens';

describe('password hashing', () => {
  it('stores a salted scrypt hash and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain('correct horse');
    expect(await hashPassword('correct horse')).not.toBe(stored);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });
});

describe('session tokens', () => {
  const tokens = new SessionTokens('s'.repeat(40));

  it('round-trips claims and refuses expired, re-signed and foreign tokens', async () => {
    const token = await tokens.sign({ userId: 7, sessionId: 'abc' }, new Date(Date.now() + 60_000));
    expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 'abc' });
    expect(await tokens.verify(await tokens.sign({ userId: 7, sessionId: 'abc' }, new Date(Date.now() - 1_000)))).toBeUndefined();
    expect(await tokens.verify(await new SessionTokens('t'.repeat(40)).sign({ userId: 7, sessionId: 'abc' }, new Date(Date.now() + 60_000)))).toBeUndefined();
    expect(await tokens.verify(`${token.slice(0, -2)}xx`)).toBeUndefined();
  });
});
