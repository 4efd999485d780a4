import { describe, expect, it } from 'vitest';
import { type Finder, type FinderOutcome, OUT_OF_TIME, findFor } from '../../../shared/domain/enrichment/enrichment';

/** A finder that answers `outcome` and counts its calls. */
const finder = (name: string, outcome: FinderOutcome) => {
  const calls: string[] = [];
  const made: Finder = {
    name,
    async find(input) {
      calls.push(input.firstName);
      return outcome;
    },
  };
  return { made, calls };
};

describe('a prospect searched within the time left', () => {
  const input = { firstName: 'Ada', lastName: 'Lovelace', domain: 'analytical.example' };

  it('asks no provider once the time is short: failed, not searched', async () => {
    const only = finder('hunter', { kind: 'found', value: 'ada@analytical.example', verification: 'verified' });
    expect(await findFor('FIND_EMAIL', { email: [only.made], phone: only.made }, input, () => false)).toEqual({ outcome: { kind: 'error', message: OUT_OF_TIME } });
    expect(only.calls).toEqual([]);
  });

  it('a provider whose first try failed and whose retry the time left no room for was not asked through', async () => {
    const failing = finder('hunter', { kind: 'error', message: 'HTTP 503' });
    let calls = 0;
    const once = () => calls++ === 0;
    expect(await findFor('FIND_EMAIL', { email: [failing.made], phone: failing.made }, input, once)).toEqual({ outcome: { kind: 'error', message: OUT_OF_TIME } });
    expect(failing.calls).toEqual(['Ada']);
    // In a waterfall, after a first finder's not found: failed for time, not "not found".
    const nothing = finder('hunter', { kind: 'not_found' });
    calls = 0;
    const twice = () => calls++ < 2;
    expect(await findFor('FIND_EMAIL_WATERFALL', { email: [nothing.made, failing.made], phone: nothing.made }, input, twice)).toEqual({ outcome: { kind: 'error', message: OUT_OF_TIME } });
  });

  it('a waterfall whose later finder the time left no call for is failed, not "not found"; a risky email found before it stands', async () => {
    const nothing = finder('hunter', { kind: 'not_found' });
    const later = finder('prospeo', { kind: 'found', value: 'ada@analytical.example', verification: 'verified' });
    // Time for one call only.
    let calls = 0;
    const once = () => calls++ === 0;
    expect(await findFor('FIND_EMAIL_WATERFALL', { email: [nothing.made, later.made], phone: nothing.made }, input, once)).toEqual({
      outcome: { kind: 'error', message: OUT_OF_TIME },
    });
    expect([nothing.calls, later.calls]).toEqual([['Ada'], []]);
    const risky = finder('hunter', { kind: 'found', value: 'ada@analytical.example', verification: 'risky' });
    calls = 0;
    expect(await findFor('FIND_EMAIL_WATERFALL', { email: [risky.made, later.made], phone: risky.made }, input, once)).toEqual({
      outcome: { kind: 'found', value: 'ada@analytical.example', verification: 'risky' },
      provider: 'hunter',
    });
    // With time for both, the not-found first one and the second's answer.
    expect(await findFor('FIND_EMAIL_WATERFALL', { email: [nothing.made, later.made], phone: nothing.made }, input)).toEqual({
      outcome: { kind: 'found', value: 'ada@analytical.example', verification: 'verified' },
      provider: 'prospeo',
    });
  });
});
