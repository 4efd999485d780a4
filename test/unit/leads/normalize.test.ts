import { describe, expect, it } from 'vitest';
import { networkIdentifier } from '../../../shared/domain/connections/connection-status';
import { canonicalPageUrl, foldText, isEmail, isPhoneNumber, normalizeEmail, pageSlug, pageUrlIdentity, rangeLowerBound, websiteDomain } from '../../../shared/domain/leads/normalize';

describe('canonicalPageUrl', () => {
  it.each([
    ['https://www.linkedin.com/in/alex-doe/', 'https://www.linkedin.com/in/alex-doe'],
    ['http://linkedin.com/in/Alex-Doe', 'https://www.linkedin.com/in/alex-doe'],
    ['https://nl.linkedin.com/in/alex-doe?trk=public_profile#about', 'https://www.linkedin.com/in/alex-doe'],
    ['https://m.linkedin.com/in/alex-doe//', 'https://www.linkedin.com/in/alex-doe'],
    ['linkedin.com/in/alex-doe', 'https://www.linkedin.com/in/alex-doe'],
    ['  https://WWW.LINKEDIN.COM:443/company/Acme/  ', 'https://www.linkedin.com/company/acme'],
    ['https://www.example.com/People/Jane/', 'https://example.com/People/Jane'],
    ['https://www.linkedin.com/in/ACoAAB3xYz_k-Q9', 'https://www.linkedin.com/in/ACoAAB3xYz_k-Q9'],
    ['https://www.linkedin.com/sales/lead/ACwAAAB1x2Y3,NAME_SEARCH,AbCd?_ntb=x', 'https://www.linkedin.com/sales/lead/ACwAAAB1x2Y3,NAME_SEARCH,AbCd'],
    ['https://www.linkedin.com/In/ACoolGuy', 'https://www.linkedin.com/in/acoolguy'],
    ['https://www.linkedin.com/in/ada-b/details/experience/', 'https://www.linkedin.com/in/ada-b'],
    ['https://www.linkedin.com/company/Acme/about', 'https://www.linkedin.com/company/acme'],
    ['https://www.linkedin.com/in/J%C3%9CRGEN-M%C3%9CLLER', 'https://www.linkedin.com/in/j%C3%BCrgen-m%C3%BCller'],
    ['https://www.linkedin.com/in/jürgen-müller', 'https://www.linkedin.com/in/j%C3%BCrgen-m%C3%BCller'],
    ['https://www.linkedin.com/in/ju\u0308rgen-mu\u0308ller', 'https://www.linkedin.com/in/j%C3%BCrgen-m%C3%BCller'],
    ['https://www.linkedin.com/talent/profile/AEMAAB1234xY', 'https://www.linkedin.com/talent/profile/AEMAAB1234xY'],
    // The legacy profile page keeps the member id its query holds.
    ['http://www.linkedin.com/profile/view?trk=x&id=ACoAAB3xYz', 'https://www.linkedin.com/profile/view?id=ACoAAB3xYz'],
    ['https://linkedin.com/profile/view/?id=12345#top', 'https://www.linkedin.com/profile/view?id=12345'],
    // An invisible format character inside a slug (a soft hyphen, a zero-width space) is dropped.
    ['https://www.linkedin.com/in/ada\u00ad-b%E2%80%8B', 'https://www.linkedin.com/in/ada-b'],
    ['https://www.linkedin.com/in/ada%C2%AD-b', 'https://www.linkedin.com/in/ada-b'],
  ])('%s -> %s', (input, expected) => {
    expect(canonicalPageUrl(input)).toBe(expected);
  });

  it('matches network pages whatever their case (the identities stored before member ids kept theirs), other pages as written', () => {
    expect(pageUrlIdentity('https://www.linkedin.com/in/ACoAAB3xYz')).toBe('https://www.linkedin.com/in/acoaab3xyz');
    expect(pageUrlIdentity('https://example.com/People/Jane')).toBe('https://example.com/People/Jane');
  });

  it('gives the provider a member id in a profile URL with its case, without a Sales Navigator search\'s tokens', () => {
    expect(networkIdentifier(canonicalPageUrl('https://www.linkedin.com/in/ACoAAB3xYz_k-Q9/') as string)).toBe('ACoAAB3xYz_k-Q9');
    expect(networkIdentifier(canonicalPageUrl('https://www.linkedin.com/sales/lead/ACwAAAB1x2Y3,NAME_SEARCH,AbCd') as string)).toBe('ACwAAAB1x2Y3');
    expect(networkIdentifier(canonicalPageUrl('https://www.linkedin.com/profile/view?id=ACoAAB3xYz&trk=x') as string)).toBe('ACoAAB3xYz');
  });

  it.each([
    '',
    'not a url',
    'ftp://linkedin.com/in/x',
    'https://linkedin.com/',
    'https://localhost/in/x',
    'mailto:a@b.c',
    // A page kind without its slug names no one (as an identity it would merge everyone sent with it).
    'https://www.linkedin.com/in/',
    'linkedin.com/in',
    'https://www.linkedin.com/company/',
    'https://linkedin.com//school//',
    // Percent-encoding that does not decode, and control characters.
    'https://www.linkedin.com/in/%zz',
    'https://www.linkedin.com/in/%E0%A4%A',
    'https://www.linkedin.com/in/a%00b',
    // A slug of spaces or invisible characters alone.
    'https://www.linkedin.com/in/%20',
    'https://linkedin.com/in/%E2%80%8B?x=1',
    'https://www.linkedin.com/sales/lead/%zz',
    // A page of one segment, a section without its id, the legacy profile page without its member.
    'https://www.linkedin.com/feed/',
    'linkedin.com/sales',
    'https://www.linkedin.com/sales/lead/',
    'https://www.linkedin.com/sales/people',
    'https://www.linkedin.com/talent/profile/?x=1',
    'https://www.linkedin.com/profile/view',
    'https://www.linkedin.com/profile/view?id=%20',
  ])(
    'refuses %j',
    (input) => {
      expect(canonicalPageUrl(input)).toBeUndefined();
    },
  );
});

describe('emails and domains', () => {
  it('lower-cases and trims emails', () => {
    expect(normalizeEmail('  Alex.Doe@Example.COM ')).toBe('alex.doe@example.com');
  });

  it.each([
    ['a@b.co', true],
    ['first.last+tag@sub.example.org', true],
    ['no-at.example.com', false],
    ['two@@example.com', false],
    ['a@localhost', false],
    ['spa ce@example.com', false],
  ])('isEmail(%s) is %s', (email, valid) => {
    expect(isEmail(email)).toBe(valid);
  });

  it.each([
    ['+31 6 1234 5678', true],
    ['+1 (555) 010-0199 ext. 12', true],
    ['020.794.6095', true],
    ['555 01 99 x7', true],
    ['1234567', true],
    ['123456', false],
    ['+1234567890123456', false],
    ['n/a', false],
    ['-', false],
    ['call the office', false],
    ['555-0199 or 555-0200', false],
    ['31+ 6 1234 5678', false],
  ])('isPhoneNumber(%s) is %s', (phone, valid) => {
    expect(isPhoneNumber(phone)).toBe(valid);
  });

  it.each([
    ['https://www.acme.com/about', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['http://shop.acme.co.uk', 'shop.acme.co.uk'],
    ['acme', undefined],
  ])('websiteDomain(%s) is %s', (input, domain) => {
    expect(websiteDomain(input)).toBe(domain);
  });
});

describe('foldText and rangeLowerBound', () => {
  it('folds case, accents and spacing', () => {
    expect(foldText('  Émile   ZÜRICH ')).toBe('emile zurich');
  });

  it('drops invisible format characters inside a value, as a reader does not see them', () => {
    expect(foldText('Cé\u200fline Ma\u00adrtin\u200b')).toBe('celine martin');
  });

  it('spells out the letters no decomposition takes apart, in either case', () => {
    expect(foldText('Straße STRAẞE Ørsted Æsir Œuvre Łódź Đakovo Þór Iğdır Ħamrun')).toBe('strasse strasse orsted aesir oeuvre lodz dakovo thor igdir hamrun');
  });

  it.each([
    ['51-200', 51],
    ['10,001+', 10001],
    ['$10M-$50M', 10_000_000],
    ['$1.5B', 1_500_000_000],
    ['500K-1M', 500_000],
    ['<$1M', 0],
    ['Less than $1M', 0],
    ['under 10 employees', 0],
    ['Under-funded', undefined],
    ['unknown', undefined],
  ])('rangeLowerBound(%s) is %s', (input, bound) => {
    expect(rangeLowerBound(input)).toBe(bound);
  });
});

describe('pageSlug', () => {
  it("names a company by its page's last segment: decoded, without control characters, as written when it does not decode", () => {
    expect(pageSlug('https://www.linkedin.com/company/acme-corp')).toBe('acme-corp');
    expect(pageSlug('https://www.linkedin.com/company/caf%C3%A9-bar')).toBe('café-bar');
    expect(pageSlug('https://www.linkedin.com/company/a%00b')).toBe('ab');
    expect(pageSlug('https://www.linkedin.com/company/100%25%E0%A4%A')).toBe('100%25%E0%A4%A');
    expect(pageSlug('https://www.linkedin.com/company/%00')).toBeUndefined();
    expect(pageSlug('https://www.linkedin.com/company/%E2%80%8B%20')).toBeUndefined();
    expect(pageSlug('https://www.linkedin.com/company')).toBeUndefined();
    expect(pageSlug('https://www.linkedin.com/school/x')).toBe('x');
  });
});
