import { describe, expect, it } from 'vitest';
import { parseItem } from '../../../shared/db/item-schema';
import { WorkspaceLeadCountsItem, leadCountsActions, leadCountsDelta, leadCountsUpdate } from '../../../shared/db/workspace-lead-counts';
import type { Company, Prospect } from '../../../shared/domain/leads/lead';

const T = '2026-11-21T12:00:00.000Z';
const prospect = (fields: Partial<Prospect> = {}): Prospect => ({
  id: 12,
  workspaceId: 7,
  firstName: 'Ada',
  lastName: 'Lovelace',
  status: 'NEW',
  listIds: [],
  version: 1,
  createdAt: T,
  updatedAt: T,
  ...fields,
});
const company = (fields: Partial<Company> = {}): Company => ({
  id: 5,
  workspaceId: 7,
  name: 'Acme',
  listIds: [],
  version: 1,
  membersSyncedVersion: 1,
  createdAt: T,
  updatedAt: T,
  ...fields,
});
const archived = (p: Prospect): Prospect => ({ ...p, status: 'ARCHIVED', version: p.version + 1 });

describe('workspace lead counts', () => {
  it('moves by each change: prospects that are not archived, new companies', () => {
    expect(leadCountsDelta({ after: prospect() })).toEqual({ prospects: 1, companies: 0 });
    expect(leadCountsDelta({ after: archived(prospect()) })).toEqual({ prospects: 0, companies: 0 });
    expect(leadCountsDelta({ before: prospect(), after: { ...prospect(), jobTitle: 'CTO', version: 2 } })).toEqual({ prospects: 0, companies: 0 });
    expect(leadCountsDelta({ before: prospect(), after: archived(prospect()) })).toEqual({ prospects: -1, companies: 0 });
    expect(leadCountsDelta({ before: archived(prospect()), after: archived(archived(prospect())) })).toEqual({ prospects: 0, companies: 0 });
    expect(leadCountsDelta({ before: archived(prospect()), after: { ...prospect(), version: 3 } })).toEqual({ prospects: 1, companies: 0 });
    expect(leadCountsDelta({ after: company() })).toEqual({ prospects: 0, companies: 1 });
    expect(leadCountsDelta({ before: company(), after: { ...company(), industry: 'Energy', version: 2 } })).toEqual({ prospects: 0, companies: 0 });
  });

  it('sums the changes of one transaction into one ADD per workspace, none when nothing moves', () => {
    expect(leadCountsUpdate('t', 7, { prospects: 2, companies: 0 })).toEqual({
      Update: {
        TableName: 't',
        Key: { pk: 'WORKSPACE#0000000000000007', sk: 'LEADCOUNTS' },
        UpdateExpression: 'ADD prospects :prospects, companies :companies SET entityType = :type, workspaceId = :workspaceId',
        ExpressionAttributeValues: { ':prospects': 2, ':companies': 0, ':type': 'WorkspaceLeadCounts', ':workspaceId': 7 },
      },
    });
    const changes = [
      { after: prospect({ id: 1 }) },
      { after: prospect({ id: 2 }) },
      { before: prospect({ id: 3 }), after: archived(prospect({ id: 3 })) },
      { after: company({ id: 4 }) },
      { after: prospect({ id: 5, workspaceId: 9 }) },
    ];
    expect(leadCountsActions('t', changes)).toEqual([leadCountsUpdate('t', 7, { prospects: 1, companies: 1 }), leadCountsUpdate('t', 9, { prospects: 1, companies: 0 })]);
    expect(leadCountsActions('t', [{ before: prospect(), after: { ...prospect(), version: 2 } }])).toEqual([]);
    expect(leadCountsActions('t', [{ after: prospect({ id: 1 }) }, { before: prospect({ id: 2 }), after: archived(prospect({ id: 2 })) }])).toEqual([]);
  });

  it('reads the stored item, an attribute not yet added as 0', () => {
    const key = { pk: 'WORKSPACE#0000000000000007', sk: 'LEADCOUNTS', entityType: 'WorkspaceLeadCounts', workspaceId: 7 };
    expect(parseItem(WorkspaceLeadCountsItem, { ...key, prospects: 3, companies: 2 })).toEqual({ prospects: 3, companies: 2 });
    expect(parseItem(WorkspaceLeadCountsItem, { ...key, prospects: 3 })).toEqual({ prospects: 3, companies: 0 });
    expect(() => parseItem(WorkspaceLeadCountsItem, { ...key, prospects: '3' })).toThrow(
      'Malformed WorkspaceLeadCounts item (pk=WORKSPACE#0000000000000007, sk=LEADCOUNTS): prospects: expected number',
    );
  });
});
