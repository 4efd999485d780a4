import { describe, expect, it } from 'vitest';
import { createUnsubscribeTokens } from '../../../shared/security/unsubscribe-token';

describe('unsubscribe tokens', () => {
  const tokens = createUnsubscribeTokens('a'.repeat(64));
  const subject = { workspaceId: 12, campaignId: 345, prospectId: 6789 };

  it('signs who unsubscribes from what, and reads it back', () => {
    const token = tokens.sign(subject);
    expect(token).toMatch(/^u1\.12\.345\.6789\.[A-Za-z0-9_-]{43}$/);
    expect(tokens.sign(subject)).toBe(token);
    expect(tokens.verify(token)).toEqual(subject);
  });

  it('refuses an altered, forged or malformed token', () => {
    const token = tokens.sign(subject);
    const mac = token.slice(token.lastIndexOf('.') + 1);
    expect(tokens.verify(token.replace('.6789.', '.6790.'))).toBeUndefined();
    expect(tokens.verify(`u1.12.345.6789.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(tokens.verify(createUnsubscribeTokens('b'.repeat(64)).sign(subject))).toBeUndefined();
    for (const bad of ['', 'u1', `u2.12.345.6789.${mac}`, `u1.12.345.6789.${mac}x`, `u1.0.345.6789.${mac}`, `u1.12.345.${mac}`]) {
      expect(tokens.verify(bad), bad).toBeUndefined();
    }
    // A zero id is never one we sign, even with a valid MAC.
    expect(tokens.verify(tokens.sign({ ...subject, prospectId: 0 }))).toBeUndefined();
  });

  describe('with the address the email went to (u2)', () => {
    const withEmail = { ...subject, email: 'ada@example.com' };

    it('seals the address, readable only with the secret, and reads it back; one email gives one link', () => {
      const token = tokens.sign(withEmail);
      expect(token).toMatch(/^u2\.12\.345\.6789\.[A-Za-z0-9_-]+$/);
      expect(token).not.toContain('example');
      expect(tokens.sign(withEmail)).toBe(token);
      expect(tokens.verify(token)).toEqual(withEmail);
      expect(tokens.sign({ ...withEmail, email: 'alan@example.com' })).not.toBe(token);
    });

    it('refuses the sealed address under other ids, altered, cut short or sealed with another secret', () => {
      const token = tokens.sign(withEmail);
      const sealed = token.slice(token.lastIndexOf('.') + 1);
      expect(tokens.verify(token.replace('.6789.', '.6790.'))).toBeUndefined();
      expect(tokens.verify(token.replace('u2.12.', 'u2.13.'))).toBeUndefined();
      expect(tokens.verify(`u2.12.345.6789.${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`)).toBeUndefined();
      expect(tokens.verify(`u2.12.345.6789.${sealed.slice(0, 30)}`)).toBeUndefined();
      expect(tokens.verify(`u1.12.345.6789.${sealed}`)).toBeUndefined();
      expect(tokens.verify(createUnsubscribeTokens('b'.repeat(64)).sign(withEmail))).toBeUndefined();
      expect(tokens.verify(`u2.12.345.6789.${'A'.repeat(401)}`)).toBeUndefined();
      expect(tokens.verify(tokens.sign({ ...withEmail, workspaceId: 0 }))).toBeUndefined();
    });

    it('refuses another spelling of the same bytes: a last character whose unused bits differ', () => {
      const token = tokens.sign(withEmail);
      const sealed = token.slice(token.lastIndexOf('.') + 1);
      // 43 sealed bytes are 58 characters, the last of which carries 2 bits: its 4 low bits are unused.
      expect(Buffer.from(sealed, 'base64url')).toHaveLength(43);
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const other = alphabet[alphabet.indexOf(sealed.at(-1) as string) ^ 1] as string;
      const respelled = `${sealed.slice(0, -1)}${other}`;
      expect(Buffer.from(respelled, 'base64url').equals(Buffer.from(sealed, 'base64url'))).toBe(true);
      expect(tokens.verify(`u2.12.345.6789.${respelled}`)).toBeUndefined();
    });
  });
});
