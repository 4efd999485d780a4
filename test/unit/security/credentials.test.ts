import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../shared/security/password';
import { SessionTokens } from '../../../shared/security/session-tokens';
import { ManualClock } from '../../../shared/time/clock';

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
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const tokens = new SessionTokens('s'.repeat(40), clock);
  const inOneMinute = () => new Date(clock.now().getTime() + 60_000);

  it('round-trips claims and refuses expired, re-signed and foreign tokens', async () => {
    const token = await tokens.sign({ userId: 7, sessionId: 'abc' }, inOneMinute());
    expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 'abc' });
    expect(await tokens.verify(await tokens.sign({ userId: 7, sessionId: 'abc' }, new Date(clock.now().getTime() - 1_000)))).toBeUndefined();
    expect(await tokens.verify(await new SessionTokens('t'.repeat(40), clock).sign({ userId: 7, sessionId: 'abc' }, inOneMinute()))).toBeUndefined();
    expect(await tokens.verify(`${token.slice(0, -2)}xx`)).toBeUndefined();
  });

  it('expires by the injected clock, not the machine time', async () => {
    const token = await tokens.sign({ userId: 7, sessionId: 'abc' }, inOneMinute());
    clock.advance(59_000);
    expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 'abc' });
    clock.advance(2_000);
    expect(await tokens.verify(token)).toBeUndefined();
  });
});
