import { describe, expect, it } from 'vitest';
import { placement } from '../../../shared/domain/campaigns/prospect-moves';
import { CompanyCounter, amountCandidates, idCandidates } from '../../../shared/domain/campaigns/selection';
import type { DigestChunk, DigestEntry } from '../../../shared/domain/leads/member-digest';

const member = (id: number, fields: { name?: string; title?: string; companyId?: number; campaignId?: number } = {}): DigestEntry => ({
  id,
  version: 1,
  sort: fields.name ? { first_name: fields.name } : {},
  filter: { ...(fields.name ? { first_name: fields.name } : {}), ...(fields.title ? { job_title: fields.title } : {}) },
  ...(fields.companyId === undefined ? {} : { companyId: fields.companyId }),
  ...(fields.campaignId === undefined ? {} : { campaignId: fields.campaignId }),
});
const chunks = (...entries: DigestEntry[]): DigestChunk[] => [
  { entries: new Map(entries.slice(0, 3).map((e) => [e.id, e])), gone: new Map() },
  { entries: new Map(entries.slice(3).map((e) => [e.id, e])), gone: new Map() },
];

const TARGET = 100;
const digest = chunks(
  member(1, { name: 'dora', title: 'cto', companyId: 7 }),
  member(2, { name: 'bea', title: 'vp sales', companyId: 7, campaignId: TARGET }),
  member(3, { name: 'cleo', title: 'cto', campaignId: 200 }),
  member(4, { name: 'ava', title: 'cto' }),
  member(5, { name: 'emma', title: 'cfo', companyId: 8 }),
);

describe('add-to-campaign selection from the digest', () => {
  it('leaves out members already in the campaign, and those in another one unless duplicates are allowed; orders as the keys do', () => {
    const rules = { campaignId: TARGET, allowDuplicates: false, perCompany: 1, filters: [], sortField: 'first_name', direction: 'asc' as const };
    expect(amountCandidates(digest, rules)).toEqual({
      candidates: [{ id: 4 }, { id: 1, companyId: 7 }, { id: 5, companyId: 8 }],
      counts: new Map([[7, 1]]),
    });
    const duplicates = amountCandidates(digest, { ...rules, allowDuplicates: true, direction: 'desc' });
    expect(duplicates.candidates.map((c) => c.id)).toEqual([5, 1, 3, 4]);
    const filtered = amountCandidates(digest, { ...rules, allowDuplicates: true, sortField: 'id', filters: [{ key: 'job_title', values: ['cto'] }] });
    expect(filtered.candidates.map((c) => c.id)).toEqual([1, 3, 4]);
  });

  it('takes named prospects in the order given and says why the others stay', () => {
    const named = idCandidates(digest, [3, 9, 2, 5, 1], { campaignId: TARGET, allowDuplicates: false, perCompany: 1 });
    expect(named).toEqual({
      candidates: [{ id: 5, companyId: 8 }, { id: 1, companyId: 7 }],
      skipped: [
        { id: 3, reason: 'in_other_campaign' },
        { id: 9, reason: 'not_in_list' },
        { id: 2, reason: 'already_in_campaign' },
      ],
      counts: new Map([[7, 1]]),
    });
  });

  it('counts per company from the campaign’s members and the ones taken; no company is never limited', () => {
    const counter = new CompanyCounter(1, new Map([[7, 1]]));
    expect([counter.allows(7), counter.allows(8), counter.allows(undefined)]).toEqual([false, true, true]);
    const trial = counter.copy();
    trial.take(8);
    expect([trial.allows(8), counter.allows(8)]).toEqual([false, true]);
    counter.take(undefined);
    expect(counter.allows(undefined)).toBe(true);
  });

  it('places added prospects by the campaign’s status and activate', () => {
    expect(placement('ACTIVE', true)).toEqual({ schedule: 'SCHEDULED' });
    expect(placement('PAUSED', true)).toEqual({ schedule: 'QUEUED' });
    expect(placement('DRAFT', true)).toEqual({
      schedule: 'WAITING',
      warning: 'Campaign is in DRAFT: prospects were added but not scheduled; activate the campaign to start outreach',
    });
    expect(placement('COMPLETED', true).schedule).toBe('WAITING');
    for (const status of ['ACTIVE', 'PAUSED', 'DRAFT', 'COMPLETED'] as const) expect(placement(status, false)).toEqual({ schedule: 'WAITING' });
  });

});
