import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_PREFIX, digestChunkKey, listMemberKey } from '../../../shared/db/keys';
import { MAX_INLINE_VIEW_BYTES } from '../../../shared/db/lead-items';
import type { TestStack } from '../../support/test-stack';
import { type ProspectView, type Workspace, createList, importLeads, leadsOf, leadsStack, person } from './helpers';

/** Text of `length` letters that does not compress: what makes member items and digest chunks large. */
const noise = (length: number) =>
  [...randomBytes(length)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');

describe('large leads: views kept with the lead, digest chunks split by size', () => {
  let stack: TestStack;
  let alice: Workspace;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack.stop());

  const memberItems = async (listId: number) =>
    (
      await stack.db.send(
        new QueryCommand({
          TableName: stack.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': listMemberKey(listId, 0).pk, ':prefix': 'LEAD#' },
          ConsistentRead: true,
        }),
      )
    ).Items ?? [];

  it('a view larger than the member item may hold is built from the lead: the page shows it whole, in order', async () => {
    const list = await createList(stack, alice, 'Big custom fields');
    const big = { notes: noise(9_000) };
    const imported = await importLeads(stack, alice, list.id, {
      leads: [person(1), person(2, { custom_fields: big }), person(3, { headline: noise(900) })],
    });
    expect(imported.created).toBe(3);
    const items = await memberItems(list.id);
    const withView = items.filter((item) => typeof item.view === 'string').map((item) => item.leadId);
    const ids = imported.leads.map((lead) => lead.id);
    expect(withView).toEqual([ids[0], ids[2]]);
    expect(Buffer.byteLength(JSON.stringify(big))).toBe(9012);
    expect(MAX_INLINE_VIEW_BYTES).toBe(2048);

    for (const query of ['', 'sort_field=first_name&sort_direction=desc', 'page_size=1&page=2', 'first_name=first2']) {
      const page = await leadsOf(stack, alice, list.id, query);
      const expected = query === 'first_name=first2' ? [ids[1]] : query === 'page_size=1&page=2' ? [ids[1]] : query ? [ids[2], ids[1], ids[0]] : ids;
      expect((page.prospects ?? []).map((p: ProspectView) => p.id)).toEqual(expected);
      const second = (page.prospects ?? []).find((p: ProspectView) => p.id === ids[1]);
      if (second) expect(second.custom_fields).toEqual(big);
    }
  });

  it('a digest chunk that outgrows an item is split, and every member stays listed, counted and filterable', async () => {
    const list = await createList(stack, alice, 'Long values');
    const rows = Array.from({ length: 80 }, (_, i) =>
      person(100 + i, {
        job_title: `title ${noise(990)}`,
        headline: noise(1000),
        location: noise(1000),
        industry: noise(1000),
        email: `p${i}-${noise(60)}@example.com`,
        company_name: `Company ${noise(900)}`,
        company_industry: noise(1000),
        company_location: noise(1000),
      }),
    );
    const imported = await importLeads(stack, alice, list.id, { leads: rows });
    expect(imported.created).toBe(80);
    const chunks =
      (
        await stack.db.send(
          new QueryCommand({
            TableName: stack.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': digestChunkKey(list.id, 0).pk, ':prefix': DIGEST_PREFIX },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    expect(chunks.length).toBe(2);
    expect(chunks.reduce((sum, chunk) => sum + (chunk.members as number), 0)).toBe(80);
    for (const chunk of chunks) expect((chunk.data as Uint8Array).byteLength).toBeLessThanOrEqual(300_000);

    const filtered = await leadsOf(stack, alice, list.id, 'job_title=title&page_size=100');
    expect(filtered.total_count).toBe(80);
    expect((filtered.prospects ?? []).map((p: ProspectView) => p.id)).toEqual(imported.leads.map((lead) => lead.id));
    const one = await leadsOf(stack, alice, list.id, `email=p7-&page_size=100`);
    expect((one.prospects ?? []).map((p: ProspectView) => p.id)).toEqual([imported.leads[7]?.id]);
  });
  it('a batch whose journal would not fit in an item (very long identities) is written as smaller batches: every row lands, counted once', async () => {
    const list = await createList(stack, alice, 'Long profile URLs');
    const rows = Array.from({ length: 800 }, (_, i) => person(1000 + i, { network_profile_url: `https://www.linkedin.com/in/${noise(950)}${i}` }));
    const imported = await importLeads(stack, alice, list.id, { leads: rows });
    expect(imported.created).toBe(800);
    expect(imported.skipped_rows).toEqual([]);
    expect(imported.total_prospects).toBe(800);
    const ids: number[] = [];
    for (let page = 1; page <= 8; page += 1) ids.push(...((await leadsOf(stack, alice, list.id, `page_size=100&page=${page}`)).prospects ?? []).map((p: ProspectView) => p.id));
    expect(ids).toEqual(imported.leads.map((lead) => lead.id).sort((a, b) => a - b));
  });

  it('a profile URL whose key would pass DynamoDB\'s 2,048-byte limit (970 CJK characters, percent-encoded) is imported and matched again, not a 500', async () => {
    const list = await createList(stack, alice, 'Non-ASCII profile URLs');
    const url = `https://www.linkedin.com/in/${'界'.repeat(970)}`;
    expect(Buffer.byteLength(encodeURI(url))).toBe(8758);
    const first = await importLeads(stack, alice, list.id, { leads: [person(5000, { network_profile_url: url })] });
    expect([first.created, first.updated, first.skipped_rows]).toEqual([1, 0, []]);
    const again = await importLeads(stack, alice, list.id, { leads: [person(5000, { network_profile_url: url, job_title: 'CTO' })] });
    expect([again.created, again.updated, again.leads.map((lead) => lead.id)]).toEqual([0, 1, first.leads.map((lead) => lead.id)]);
    const page = await leadsOf(stack, alice, list.id, '');
    expect((page.prospects ?? []).map((p: ProspectView) => [p.id, p.job_title])).toEqual([[first.leads[0]?.id, 'CTO']]);
  });
});
