import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditRepository } from '../../../shared/db/credit-repository';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { campaignKey, campaignProspectByStatus, campaignProspectKey, prospectKey } from '../../../shared/db/keys';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { createCreditService } from '../../../shared/domain/credits/credits';
import { ManualClock } from '../../../shared/time/clock';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, expectedProspect, importLeads, leadsOf, leadsStack, person } from '../leads/helpers';
import { addToCampaign, campaignItems, createCampaign, prospectCount, setStatus, storedProspect } from './helpers';

const NOW = '2026-12-03T10:00:00.000Z';

interface PageProspect {
  id: number;
  status: string;
  campaign_id: number;
  current_step_id: number | null;
  next_action_at: string | null;
  last_error: string | null;
  [key: string]: unknown;
}
interface ProspectsPage {
  success: boolean;
  prospects: PageProspect[];
  next_cursor: string | null;
}

describe('a campaign’s prospects, and taking prospects out', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let campaign: Campaign;
  /** The 150 prospects imported into the campaign, in id order. */
  let ids: number[];

  const page = (ws: Workspace, campaignId: number, query = '') =>
    stack.call<ProspectsPage>('GET', `/public/campaigns/${campaignId}/prospects/${query ? `?${query}` : ''}`, { apiKey: ws.key });
  const remove = (ws: Workspace, campaignId: number, body: unknown) =>
    stack.call<{ success: boolean; count: number }>('POST', `/public/campaigns/${campaignId}/remove-prospects/`, { apiKey: ws.key, body });

  /** What the engine will do: a prospect's status (on the prospect and its campaign item) and its last error. */
  async function engineSets(id: number, status: string, lastError: string | null) {
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: prospectKey(id),
        UpdateExpression: 'SET #s = :s, version = version + :one',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': status, ':one': 1 },
      }),
    );
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: campaignProspectKey(campaign.id, id),
        UpdateExpression: 'SET #s = :s, lsi1sk = :k, lastError = :e',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': status, ':k': campaignProspectByStatus(status, id).lsi1sk, ':e': lastError },
      }),
    );
  }

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ clock: new ManualClock(NOW) }));
    const flow = { root: 10, nodes: { 10: { kind: 'STEP' as const, type: 'EMAIL', parent: null, child: null } }, redirects: {} };
    campaign = await createCampaign(stack, alice, 'Paged', { status: 'ACTIVE', flow });
    const leads = Array.from({ length: 150 }, (_, i) => ({ first_name: 'Paged', last_name: `${i}`, network_profile_url: `https://www.linkedin.com/in/paged-${i}` }));
    const imported = await stack.call<{ count: number }>('POST', `/public/campaigns/${campaign.id}/import/`, { apiKey: alice.key, body: { leads, activate: true } });
    expect(imported.body.count).toBe(150);
    ids = (await campaignItems(stack, campaign.id)).map((item) => item.prospectId as number);
    expect(ids).toHaveLength(150);
    // The flow's node 10 was deleted since: replaced by 11, itself replaced by 12.
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: campaignKey(campaign.id),
        UpdateExpression: 'SET flow = :flow',
        ExpressionAttributeValues: {
          ':flow': { root: 12, nodes: { 12: { kind: 'STEP', type: 'EMAIL', parent: null, child: null } }, redirects: { 10: 11, 11: 12 } },
        },
      }),
    );
  });
  afterAll(async () => stack?.stop());

  it('pages through the prospects 100 at a time in id order, with their step, next action and last error', async () => {
    const first = await page(alice, campaign.id);
    expect(first.status, first.text).toBe(200);
    expect(first.body.prospects.map((p) => p.id)).toEqual(ids.slice(0, 100));
    expect(first.body.prospects[0]).toEqual(
      expectedProspect({
        id: ids[0],
        first_name: 'Paged',
        last_name: expect.any(String),
        network_profile_url: expect.stringMatching(/^https:\/\/www\.linkedin\.com\/in\/paged-\d+$/),
        status: 'IN_REVIEW',
        campaign_id: campaign.id,
        current_step_id: 12,
        next_action_at: NOW,
        last_error: null,
        created_at: NOW,
        updated_at: NOW,
      }),
    );
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await page(alice, campaign.id, `cursor=${encodeURIComponent(first.body.next_cursor as string)}`);
    expect(second.body.prospects.map((p) => p.id)).toEqual(ids.slice(100));
    expect(second.body.next_cursor).toBeNull();
    // Empty values are no values: the first page, every status.
    const empty = await page(alice, campaign.id, 'cursor=&status=');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(first.body);
  });

  it('filters by status (lsi1) and pages within it', async () => {
    await engineSets(ids[3] as number, 'REPLIED', null);
    await engineSets(ids[120] as number, 'REPLIED', null);
    await engineSets(ids[7] as number, 'BOUNCED', 'Mailbox does not exist');
    const replied = await page(alice, campaign.id, 'status=REPLIED');
    expect(replied.body).toEqual({ success: true, prospects: [expect.objectContaining({ id: ids[3], status: 'REPLIED' }), expect.objectContaining({ id: ids[120], status: 'REPLIED' })], next_cursor: null });
    const bounced = await page(alice, campaign.id, 'status=BOUNCED');
    expect(bounced.body.prospects.map((p) => [p.id, p.status, p.last_error])).toEqual([[ids[7], 'BOUNCED', 'Mailbox does not exist']]);
    const inReview = await page(alice, campaign.id, 'status=IN_REVIEW');
    const rest = ids.filter((id) => ![ids[3], ids[7], ids[120]].includes(id));
    expect(inReview.body.prospects.map((p) => p.id)).toEqual(rest.slice(0, 100));
    const next = await page(alice, campaign.id, `status=IN_REVIEW&cursor=${inReview.body.next_cursor}`);
    expect(next.body.prospects.map((p) => p.id)).toEqual(rest.slice(100));
    expect(next.body.next_cursor).toBeNull();
    expect((await page(alice, campaign.id, 'status=FINISHED')).body).toEqual({ success: true, prospects: [], next_cursor: null });

    // A cursor belongs to its listing.
    const cursor = inReview.body.next_cursor as string;
    for (const query of [`status=REPLIED&cursor=${cursor}`, `cursor=${cursor}`, 'cursor=garbage', `status=IN_REVIEW&cursor=${first(cursor)}`]) {
      const response = await page(alice, campaign.id, query);
      expect({ query, status: response.status, body: response.body }).toEqual({ query, status: 400, body: { error: 'cursor is not valid for this listing' } });
    }
    const unknown = await page(alice, campaign.id, 'status=DONE');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: 'status must be one of: NEW, IN_REVIEW, IN_PROGRESS, REPLIED, INTERESTED, NOT_INTERESTED, MEETING_SCHEDULED, FINISHED, BOUNCED, UNSUBSCRIBED, ARCHIVED, Loading…',
    });
  });

  it('shows a prospect a running enrichment job holds as Loading…, as the lists do: ?status=Loading… finds it, its stored status does not, until the job is done', async () => {
    const list = await createList(stack, alice, 'Campaign while enriching');
    const [held, other] = (await importLeads(stack, alice, list.id, { leads: [person(900), person(901)] })).leads.map((lead) => lead.id) as [number, number];
    const target = await createCampaign(stack, alice, 'Enriching');
    expect((await addToCampaign(stack, alice, list.id, { campaign: target.id, prospect_ids: [held, other] })).body.count).toBe(2);
    await createCreditService({ credits: new DynamoCreditRepository(stack.db, stack.tableName), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock: stack.clock }).grant(
      alice.workspaceId,
      30,
      'test grant',
    );
    const statuses = async (query = '') => Object.fromEntries((await page(alice, target.id, query)).body.prospects.map((p) => [p.id, p.status]));
    expect(await statuses()).toEqual({ [held]: 'IN_REVIEW', [other]: 'IN_REVIEW' });

    // Async: the job holds the one prospect it takes (the first by id) until its worker has run.
    const started = await stack.call('POST', `/public/lead-lists/${list.id}/enrichment/`, { apiKey: alice.key, body: { enrichment_type: 'FIND_PHONE', prospect_limit: 1 } });
    expect([started.status, started.body.success], started.text).toEqual([200, true]);
    expect(await statuses()).toEqual({ [held]: 'Loading…', [other]: 'IN_REVIEW' });
    expect(await statuses(`status=${encodeURIComponent('Loading…')}`)).toEqual({ [held]: 'Loading…' });
    expect(await statuses('status=IN_REVIEW')).toEqual({ [other]: 'IN_REVIEW' });
    await stack.drain('enrichment');
    expect(await statuses()).toEqual({ [held]: 'IN_REVIEW', [other]: 'IN_REVIEW' });
    expect(await statuses(`status=${encodeURIComponent('Loading…')}`)).toEqual({});
  });

  it('says why a prospect added without activate to a running or finished campaign has no next action', async () => {
    const flow = { root: 20, nodes: { 20: { kind: 'STEP' as const, type: 'EMAIL', parent: null, child: null } }, redirects: {} };
    const lead = (n: number) => ({ first_name: 'Unactivated', last_name: `${n}`, network_profile_url: `https://www.linkedin.com/in/unactivated-${n}` });
    const shown = async (status: 'ACTIVE' | 'COMPLETED' | 'PAUSED' | 'DRAFT', n: number) => {
      const target = await createCampaign(stack, alice, `Added without activate, ${status}`, { status, flow });
      const imported = await stack.call<{ count: number }>('POST', `/public/campaigns/${target.id}/import/`, { apiKey: alice.key, body: { leads: [lead(n)] } });
      expect(imported.body.count).toBe(1);
      return (await page(alice, target.id)).body.prospects.map((p) => [p.status, p.next_action_at, p.last_error]);
    };
    const why = 'not scheduled: added without activate; activate the campaign (or add it with activate: true) to start its sequence';
    expect(await shown('ACTIVE', 1)).toEqual([['IN_REVIEW', null, why]]);
    expect(await shown('COMPLETED', 2)).toEqual([['IN_REVIEW', null, why]]);
    // A paused or draft campaign's prospects wait for it, as expected.
    expect(await shown('PAUSED', 3)).toEqual([['IN_REVIEW', null, null]]);
    expect(await shown('DRAFT', 4)).toEqual([['IN_REVIEW', null, null]]);
  });

  it('takes prospects out: NEW again, out of the campaign and its count, still in their lists', async () => {
    const list = await createList(stack, alice, 'Removal');
    const listed = (await importLeads(stack, alice, list.id, { leads: [person(1), person(2), person(3)] })).leads.map((lead) => lead.id);
    const target = await createCampaign(stack, alice, 'Removal', { status: 'ACTIVE' });
    await addToCampaign(stack, alice, list.id, { campaign: target.id, prospect_ids: listed, activate: true });
    expect(await prospectCount(stack, target.id)).toBe(3);
    const bobsList = await createList(stack, bob, 'Bob');
    const bobsProspect = (await importLeads(stack, bob, bobsList.id, { leads: [person(1)] })).leads[0]?.id as number;

    const removed = await remove(alice, target.id, { prospect_ids: [listed[0], listed[1], listed[1], ids[0], bobsProspect, 987654321] });
    expect(removed.body).toEqual({ success: true, count: 2 });
    expect(await prospectCount(stack, target.id)).toBe(1);
    expect((await campaignItems(stack, target.id)).map((item) => item.prospectId)).toEqual([listed[2]]);
    const shown = await leadsOf(stack, alice, list.id);
    expect(shown.prospects?.map((p) => [p.id, p.status, p.campaign_id])).toEqual([
      [listed[0], 'NEW', null],
      [listed[1], 'NEW', null],
      [listed[2], 'IN_REVIEW', target.id],
    ]);
    expect((await storedProspect(stack, listed[0] as number))?.campaignId).toBeUndefined();
    // The other campaign's prospect named here was left alone.
    expect((await storedProspect(stack, ids[0] as number))?.campaignId).toBe(campaign.id);
    expect((await storedProspect(stack, bobsProspect))?.status).toBe('NEW');
    expect((await remove(alice, target.id, { prospect_ids: [listed[0]] })).body).toEqual({ success: true, count: 0 });
  });

  it('answers 400 for bad bodies, 404 for other workspaces’ campaigns, and 409 for changes to an archived campaign (reading it is fine)', async () => {
    const flow = { root: 4545, nodes: { 4545: { kind: 'STEP' as const, type: 'NETWORK_INVITE', parent: null, child: null } }, redirects: {} };
    const archived = await createCampaign(stack, alice, 'To archive', { status: 'ACTIVE', flow });
    await stack.call('POST', `/public/campaigns/${archived.id}/import/`, {
      apiKey: alice.key,
      body: { leads: [{ first_name: 'Kept', last_name: 'In', network_profile_url: 'https://www.linkedin.com/in/kept-in' }], activate: true },
    });
    const scheduled = await page(alice, archived.id);
    expect(scheduled.body.prospects.map((p) => [p.current_step_id, p.next_action_at])).toEqual([[4545, NOW]]);
    await setStatus(stack, archived, 'ARCHIVED');
    const kept = (await campaignItems(stack, archived.id))[0]?.prospectId as number;
    const readable = await page(alice, archived.id);
    // Archived: listed, with no current step and no next action (nothing is sent any more).
    expect(readable.body.prospects.map((p) => [p.id, p.current_step_id, p.next_action_at])).toEqual([[kept, null, null]]);
    const cases: [Workspace, number, unknown, number, string][] = [
      [alice, archived.id, { prospect_ids: [kept] }, 409, 'Campaign is archived'],
      [alice, campaign.id, {}, 400, 'prospect_ids is required'],
      [alice, campaign.id, { prospectIds: [1] }, 400, 'prospectIds is not a field of remove-prospects (fields: prospect_ids)'],
      [alice, campaign.id, { prospect_ids: [] }, 400, 'prospect_ids must contain at least one id'],
      [alice, campaign.id, { prospect_ids: ['x'] }, 400, 'prospect_ids must be an array of integer ids'],
      [alice, campaign.id, { prospect_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 400, 'prospect_ids may hold at most 1000 ids'],
      [bob, campaign.id, { prospect_ids: [ids[0]] }, 404, 'Campaign not found'],
      [alice, 987654321, { prospect_ids: [ids[0]] }, 404, 'Campaign not found'],
    ];
    for (const [ws, campaignId, body, status, error] of cases) {
      const response = await remove(ws, campaignId, body);
      expect({ body, status: response.status, answer: response.body }).toEqual({ body, status, answer: { error } });
    }
    expect(await prospectCount(stack, archived.id)).toBe(1);
    expect((await page(bob, campaign.id)).body).toEqual({ error: 'Campaign not found' });
    expect((await page(alice, 987654321)).status).toBe(404);
    expect(await prospectCount(stack, campaign.id)).toBe(150);
  });
});

/** The same cursor for another campaign: a cursor is bound to its campaign too. */
function first(cursor: string): string {
  const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { c: number };
  return Buffer.from(JSON.stringify({ ...parsed, c: parsed.c + 1 })).toString('base64url');
}
