import { describe, expect, it } from 'vitest';
import { isOneClick } from '../../../functions/http/unsubscribe/one-click';
import { suppressionDomain, suppressionEmail, suppressionKeysOf } from '../../../shared/domain/suppressions/suppression';

describe('suppression values', () => {
  it('keeps addresses and domains lowercase and trimmed, and refuses what is neither', () => {
    expect(suppressionEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(suppressionEmail('a+tag@mail.example.co.uk')).toBe('a+tag@mail.example.co.uk');
    for (const bad of ['ada', 'ada@', '@example.com', 'a@localhost', 'a b@example.com', 'a@-x.com', `${'a'.repeat(250)}@x.co`, 'a@b@c.com']) {
      expect(suppressionEmail(bad), bad).toBeUndefined();
    }
    expect(suppressionDomain(' Example.COM. ')).toBe('example.com');
    expect(suppressionDomain('123.example.com')).toBe('123.example.com');
    for (const bad of ['example', 'exa mple.com', '-x.com', 'x-.com', 'a..b.com', `${'a'.repeat(64)}.com`, '127.0.0.1', '10.0.0.1.', 'host.123']) {
      expect(suppressionDomain(bad), bad).toBeUndefined();
    }
  });

  it('keeps every address the engine may email: internationalized domains in ASCII, underscores in labels', () => {
    expect(suppressionEmail('Anna@Müller.de')).toBe('anna@xn--mller-kva.de');
    expect(suppressionDomain('MÜLLER.de.')).toBe('xn--mller-kva.de');
    expect(suppressionEmail('j@mail_srv.example.com')).toBe('j@mail_srv.example.com');
    expect(suppressionKeysOf('x@müller.de')).toEqual([
      { type: 'EMAIL', value: 'x@xn--mller-kva.de' },
      { type: 'DOMAIN', value: 'xn--mller-kva.de' },
    ]);
    expect(suppressionEmail('@example.com')).toBeUndefined();
    expect(suppressionEmail('a b@example.com')).toBeUndefined();
  });

  it('checks an address by itself and its exact domain', () => {
    expect(suppressionKeysOf('Ada@Mail.Example.com')).toEqual([
      { type: 'EMAIL', value: 'ada@mail.example.com' },
      { type: 'DOMAIN', value: 'mail.example.com' },
    ]);
    expect(suppressionKeysOf('not an address')).toEqual([]);
  });
});

describe('the one-click body (RFC 8058)', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  it('accepts List-Unsubscribe=One-Click form-encoded or multipart, nothing else', () => {
    expect(isOneClick(form, 'List-Unsubscribe=One-Click')).toBe(true);
    expect(isOneClick({ 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' }, 'List-Unsubscribe=One-Click\r\n')).toBe(true);
    expect(isOneClick(null, 'List-Unsubscribe=One-Click')).toBe(true);
    const multipart = '--b\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b--\r\n';
    expect(isOneClick({ 'content-type': 'multipart/form-data; boundary=b' }, multipart)).toBe(true);
    expect(isOneClick({ 'content-type': 'multipart/form-data; boundary=b' }, multipart.replace('One-Click', 'No'))).toBe(false);
    expect(isOneClick(form, 'List-Unsubscribe=Yes')).toBe(false);
    expect(isOneClick(form, '')).toBe(false);
    expect(isOneClick(form, 'list-unsubscribe=one-click')).toBe(false);
  });
});
