import { describe, expect, it } from 'vitest';
import { checkDestination, classifyAddress } from '../../../shared/webhooks/destination';

const REFUSED = 'webhook_url must not point to a private, loopback, link-local or reserved address';

describe('address classes', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:8.8.8.8', 'public'],
    ['10.1.2.3', 'forbidden'],
    ['172.31.255.255', 'forbidden'],
    ['192.168.0.1', 'forbidden'],
    ['169.254.169.254', 'forbidden'],
    ['100.100.100.200', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['::ffff:10.0.0.1', 'forbidden'],
    ['64:ff9b::a00:1', 'forbidden'],
    ['2002:7f00:1::', 'forbidden'],
    // IPv4-compatible (::/96) forms of the metadata address, a private one and loopback, and other
    // IPv6 outside global unicast (2000::/3).
    ['::a9fe:a9fe', 'forbidden'],
    ['::169.254.169.254', 'forbidden'],
    ['::a00:1', 'forbidden'],
    ['::7f00:1', 'forbidden'],
    ['::808:808', 'forbidden'],
    ['100::1', 'forbidden'],
    ['4000::1', 'forbidden'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['239.1.1.1', 'forbidden'],
    ['not-an-ip', 'forbidden'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('URL checks before any DNS', () => {
  const deployed = { allowLoopback: false };
  const local = { allowLoopback: true };

  it('accepts public https URLs and names, normalised', () => {
    const checked = checkDestination('https://Example.COM/hook#frag', deployed);
    expect(checked.ok && checked.url.href).toBe('https://example.com/hook');
    expect(checkDestination('https://localhost/hook', deployed)).toEqual({ ok: true, url: new URL('https://localhost/hook') }); // resolved and refused on connect
  });

  it('normalises odd IPv4 spellings before checking them', () => {
    for (const url of ['https://2130706433/', 'https://0177.0.0.1/', 'https://0x7f.1/', 'https://127.1/', 'https://0x7f.0.0.1/']) {
      expect(checkDestination(url, deployed), url).toEqual({ ok: false, reason: REFUSED });
    }
  });

  it('allows loopback (and http to it) only where loopback is allowed', () => {
    expect(checkDestination('http://127.0.0.1:3000/hook', local)).toEqual({ ok: true, url: new URL('http://127.0.0.1:3000/hook') });
    expect(checkDestination('http://localhost:3000/hook', local)).toEqual({ ok: true, url: new URL('http://localhost:3000/hook') });
    expect(checkDestination('https://[::1]:3000/hook', local)).toEqual({ ok: true, url: new URL('https://[::1]:3000/hook') });
    expect(checkDestination('http://example.com/hook', local)).toEqual({ ok: false, reason: 'webhook_url must use https:// (or http:// to this machine)' });
    expect(checkDestination('https://10.0.0.1/hook', local)).toEqual({ ok: false, reason: REFUSED });
    expect(checkDestination('http://127.0.0.1:3000/hook', deployed)).toEqual({ ok: false, reason: 'webhook_url must use https://' });
  });
});
