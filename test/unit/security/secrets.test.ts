import { describe, expect, it } from 'vitest';
import { createConnectStateSigner } from '../../../shared/security/connect-state';
import { createSecretBox, safeEqual } from '../../../shared/security/secret-box';

const KEY = 'k'.repeat(64);

describe('secret box', () => {
  it('round-trips and never stores the plain text', () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal('whsec_abc');
    // A 12-byte IV, a 16-byte tag and the 9 bytes of 'whsec_abc', base64url.
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{12}$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed); // a fresh IV each time
    expect(box.open(sealed)).toBe('whsec_abc');
  });

  it('refuses tampered data, another key and short key material', () => {
    const sealed = createSecretBox(KEY).seal('whsec_abc');
    const [version, iv, tag, data] = sealed.split('.');
    const flipped = `${version}.${iv}.${tag}.${(data?.[0] === 'A' ? 'B' : 'A') + (data ?? '').slice(1)}`;
    expect(() => createSecretBox(KEY).open(flipped)).toThrow(/^Unsupported state or unable to authenticate data$/);
    expect(() => createSecretBox('x'.repeat(64)).open(sealed)).toThrow(/^Unsupported state or unable to authenticate data$/);
    expect(() => createSecretBox('short')).toThrow(/^The key material must be at least 32 characters$/);
  });

  it('compares shared secrets exactly', () => {
    expect(safeEqual('secret', 'secret')).toBe(true);
    expect(safeEqual('secret', 'secreT')).toBe(false);
    expect(safeEqual('', 'secret')).toBe(false);
  });
});

describe('hosted-connect state', () => {
  const signer = createConnectStateSigner('s'.repeat(64));
  const now = new Date('2026-11-21T12:00:00.000Z');
  const expires = new Date('2026-11-21T13:00:00.000Z');

  it('names the workspace that asked for the link', () => {
    expect(signer.verify(signer.sign(42, expires), now)).toBe(42);
  });

  it('refuses another key, a changed workspace and an old link', () => {
    const state = signer.sign(42, expires);
    expect(createConnectStateSigner('t'.repeat(64)).verify(state, now)).toBeUndefined();
    expect(signer.verify(state.replace('cs1.42.', 'cs1.43.'), now)).toBeUndefined();
    expect(signer.verify(state, new Date('2026-11-21T14:00:01.000Z'))).toBeUndefined();
    expect(signer.verify('garbage', now)).toBeUndefined();
  });
});
