import { randomBytes } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { copyTable } from '../../../infra/migrate/copy-table';
import { makeDocClient } from '../../../shared/db/client';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';
import { addToCampaign, createCampaign } from '../campaigns/helpers';
import { type LeadsPage, type Workspace, createList, importLeads, leadsOf, person } from '../leads/helpers';

/**
 * The upgrade of a table created with ALL local indexes (docs/deploy.md): the service runs on it as
 * it is, then `npm run copy-table` copies it into a table created today (KEYS_ONLY), and the same
 * key reads the same answers there: list pages in an LSI's order, a campaign's prospects by status.
 */
describe('a table created with ALL local indexes, and its copy into a KEYS_ONLY table', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const suffix = randomBytes(4).toString('hex');
  const oldTable = `old${suffix}`;
  const newTable = `new${suffix}`;
  const clock = new ManualClock('2026-12-03T10:00:00.000Z');
  let stack: TestStack | undefined;
  let ws: Workspace;
  let listId: number;
  let campaign: Campaign;

  const projections = async (table: string) =>
    ((await db.send(new DescribeTableCommand({ TableName: table }))).Table?.LocalSecondaryIndexes ?? []).map((index) => index.Projection?.ProjectionType);
  const itemsOf = async (table: string) => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
  };
  const names = (page: LeadsPage) => (page.prospects ?? []).map((p) => `${p.first_name} ${p.last_name}`);
  const inReview = async (running: TestStack) => {
    const page = await running.call<{ prospects: { id: number; status: string }[] }>('GET', `/public/campaigns/${campaign.id}/prospects/?status=IN_REVIEW`, {
      apiKey: ws.key,
    });
    expect(page.status, page.text).toBe(200);
    return page.body.prospects.map((p) => [p.id, p.status]);
  };

  beforeAll(async () => {
    await ensureTable(db, oldTable, { localIndexProjection: 'ALL' });
    stack = await startTestStack({ rateLimitPerMinute: 100_000, tableName: oldTable, clock });
    const user = await signUp(stack);
    ws = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId, user };
    listId = (await createList(stack, ws, 'Upgraded')).id;
    // First names out of id order, so that the first_name order (lsi1) differs from the id order.
    const leads = Array.from({ length: 30 }, (_, i) => person(i, { first_name: `Name${String((i * 7) % 30).padStart(2, '0')}` }));
    expect((await importLeads(stack, ws, listId, { leads })).created).toBe(30);
    campaign = await createCampaign(stack, ws, 'Moved in', { status: 'ACTIVE' });
  });

  afterAll(async () => {
    await stack?.stop();
    db.destroy();
  });

  it('serves a table created with ALL local indexes, copies it whole, and answers the same from the KEYS_ONLY copy', async () => {
    const running = stack as TestStack;
    expect(await projections(oldTable)).toEqual(['ALL', 'ALL', 'ALL', 'ALL', 'ALL']);
    const ids = (await leadsOf(running, ws, listId, 'page_size=30')).prospects?.map((p) => p.id) ?? [];
    const moved = await addToCampaign(running, ws, listId, { campaign: campaign.id, prospect_ids: ids.slice(0, 5), activate: false });
    expect(moved.status, moved.text).toBe(200);
    const byFirstName = await leadsOf(running, ws, listId, 'sort_field=first_name&sort_direction=desc&page_size=10&page=2');
    expect(names(byFirstName)).toEqual(Array.from({ length: 10 }, (_, i) => 19 - i).map((n) => `Name${String(n).padStart(2, '0')} Last${(n * 13) % 30}`));
    const waiting = await inReview(running);
    expect(waiting).toEqual(ids.slice(0, 5).map((id) => [id, 'IN_REVIEW']));
    await running.stop();

    // The stack deployed after the upgrade: a new table (KEYS_ONLY), filled by the copy.
    stack = await startTestStack({ rateLimitPerMinute: 100_000, tableName: newTable, clock });
    expect(await projections(newTable)).toEqual(['KEYS_ONLY', 'KEYS_ONLY', 'KEYS_ONLY', 'KEYS_ONLY', 'KEYS_ONLY']);
    const before = await itemsOf(oldTable);
    const report = await copyTable(db, oldTable, newTable, { segments: 3 });
    expect(report.copied).toBe(before.length);
    expect(await itemsOf(newTable)).toEqual(before);
    // A second run (after an interruption) ends with the same items.
    expect((await copyTable(db, oldTable, newTable, { segments: 2 })).copied).toBe(before.length);
    expect(await itemsOf(newTable)).toEqual(before);

    const upgraded = stack;
    expect(await leadsOf(upgraded, ws, listId, 'sort_field=first_name&sort_direction=desc&page_size=10&page=2')).toEqual(byFirstName);
    expect(await inReview(upgraded)).toEqual(waiting);
    // And it keeps working: five more moved in, read by status through the KEYS_ONLY lsi1.
    const more = await addToCampaign(upgraded, ws, listId, { campaign: campaign.id, prospect_ids: ids.slice(5, 10), activate: false });
    expect(more.body.count).toBe(5);
    expect(await inReview(upgraded)).toEqual(ids.slice(0, 10).map((id) => [id, 'IN_REVIEW']));
  });
});
