import { describe, expect, it } from 'vitest';
import { CAMPAIGN_LIMITS, type Campaign, assertStructureEditable, canonicalLanguage, canonicalTimezone, numberedName, pacingLoosened } from '../../../../shared/domain/campaigns/campaign';

describe('numberedName', () => {
  it('keeps the first name and numbers the next ones', () => {
    expect(numberedName('Q4 outreach', 1)).toBe('Q4 outreach');
    expect(numberedName('Q4 outreach', 2)).toBe('Q4 outreach (2)');
    expect(numberedName('Q4 outreach', 12)).toBe('Q4 outreach (12)');
  });

  it('shortens a name at the maximum so that the numbered name stays within it', () => {
    const longest = 'n'.repeat(CAMPAIGN_LIMITS.maxNameLength);
    expect(numberedName(longest, 2)).toBe(`${'n'.repeat(196)} (2)`);
    expect(numberedName(longest, 10)).toBe(`${'n'.repeat(195)} (10)`);
    expect(numberedName(`${'n'.repeat(195)}     `, 2)).toBe(`${'n'.repeat(195)} (2)`);
  });

  it('never splits a surrogate pair', () => {
    // 195 characters, then an emoji (two UTF-16 units) across the cut at 196.
    const name = `${'n'.repeat(195)}😀${'n'.repeat(3)}`;
    expect(numberedName(name, 2)).toBe(`${'n'.repeat(195)} (2)`);
  });
});

describe('assertStructureEditable', () => {
  const inStatus = (status: Campaign['status']) => ({ status }) as Campaign;

  it('lets the structure change while DRAFT or PAUSED', () => {
    expect(() => assertStructureEditable(inStatus('DRAFT'))).not.toThrow();
    expect(() => assertStructureEditable(inStatus('PAUSED'))).not.toThrow();
  });

  it('says how to get to a status that allows it', () => {
    expect(() => assertStructureEditable(inStatus('ACTIVE'))).toThrow('The flow of a campaign that is ACTIVE cannot change; pause it first');
    // A COMPLETED campaign cannot be paused as it is: it is activated first.
    expect(() => assertStructureEditable(inStatus('COMPLETED'))).toThrow(
      'The flow of a campaign that is COMPLETED cannot change; activate it and pause it first',
    );
    expect(() => assertStructureEditable(inStatus('ARCHIVED'))).toThrow('Campaign is archived');
  });
});

describe('pacingLoosened', () => {
  const before = {
    timezone: 'Europe/Amsterdam',
    emailMaxMessages: 40,
    networkMaxMessages: 100,
    networkMaxConnections: 50,
    sendingWindow: { monday: { enabled: true, start: '09:00', end: '17:00' } },
    accountIds: [1, 2],
  } as unknown as Campaign;
  const changedTo = (change: Partial<Campaign>) => ({ ...before, ...change }) as Campaign;

  it('is true for a cap raised, the window or timezone changed, or an account attached or detached', () => {
    expect(
      [
        changedTo({ emailMaxMessages: 41 }),
        changedTo({ networkMaxMessages: 101 }),
        changedTo({ networkMaxConnections: 51 }),
        changedTo({ timezone: 'UTC' }),
        changedTo({ sendingWindow: { monday: { enabled: true, start: '08:00', end: '17:00' } } }),
        changedTo({ accountIds: [2, 3] }),
        changedTo({ accountIds: [1] }),
      ].map((changed) => pacingLoosened(before, changed)),
    ).toEqual([true, true, true, true, true, true, true]);
  });

  it('is false for caps lowered, the same accounts in another order, or nothing that paces changed', () => {
    expect(
      [
        changedTo({ emailMaxMessages: 39, networkMaxMessages: 0 }),
        changedTo({ accountIds: [2, 1] }),
        changedTo({ name: 'Renamed', sendingWindow: { monday: { start: '09:00', end: '17:00', enabled: true } } }),
      ].map((changed) => pacingLoosened(before, changed)),
    ).toEqual([false, false, false]);
  });
});

describe('canonicalTimezone', () => {
  it.each([
    ['america/new_york', 'America/New_York'],
    ['US/Eastern', 'America/New_York'],
    ['utc', 'UTC'],
    // Names ICU keeps though IANA has replaced them: IANA's, however they are sent.
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['asia/calcutta', 'Asia/Kolkata'],
    ['Europe/Kyiv', 'Europe/Kyiv'],
    ['Europe/Kiev', 'Europe/Kyiv'],
    ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ['Asia/Ho_Chi_Minh', 'Asia/Ho_Chi_Minh'],
    ['Pacific/Kanton', 'Pacific/Kanton'],
    ['Pacific/Chuuk', 'Pacific/Chuuk'],
    ['Pacific/Truk', 'Pacific/Chuuk'],
    ['Pacific/Pohnpei', 'Pacific/Pohnpei'],
    ['America/Atikokan', 'America/Atikokan'],
    ['Africa/Asmara', 'Africa/Asmara'],
  ])('%s is %s', (sent, stored) => {
    expect(canonicalTimezone(sent)).toBe(stored);
  });

  it('gives only names the runtime takes, each for the same zone as ICU\'s', () => {
    const when = new Date('2026-07-01T12:00:00Z');
    const clock = (zone: string) => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeStyle: 'long', dateStyle: 'short' }).format(when);
    for (const zone of Intl.supportedValuesOf('timeZone')) expect(clock(canonicalTimezone(zone)), zone).toBe(clock(zone));
  });

  it('refuses a zone the runtime does not know', () => {
    expect(() => canonicalTimezone('Mars/Olympus')).toThrow('timezone must be an IANA time zone name such as Europe/Amsterdam, got "Mars/Olympus"');
  });
});

describe('canonicalLanguage', () => {
  it.each([
    ['en', 'en'],
    ['pt-BR', 'pt-BR'],
    ['en-us', 'en-US'],
    ['EN', 'en'],
    ['zh-hant', 'zh-Hant'],
    ['es-419', 'es-419'],
    ['fil', 'fil'],
    // Replaced codes take their current one.
    ['iw', 'he'],
    ['in', 'id'],
  ])('writes %s as %s', (sent, stored) => {
    expect(canonicalLanguage(sent)).toBe(stored);
  });

  it.each(['zz', 'xx', 'und', 'en-ZZ', 'en-XX', 'zh-Zzzz', 'en-1234', 'en-'])('refuses %s, naming it', (sent) => {
    expect(() => canonicalLanguage(sent)).toThrow(`language must be a language code such as en, nl or pt-BR, got "${sent}"`);
  });
});
