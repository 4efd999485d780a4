import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dueShard, listMemberKey, padId } from '../../../shared/db/keys';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import type { TestStack } from '../../support/test-stack';
import {
  type LeadListView,
  type Workspace,
  leadsOf,
} from '../leads/helpers';
import { addToCampaign, campaignItems, createCampaign, engineAction, prospectCount, setStatus, storedProspect } from './helpers';
import { DRAFT_WARNING, NOW, moveHelpers, startMoveWorld } from './add-to-campaign-helpers';

/** Moving prospects into a campaign: scheduling by the campaign's status, racing requests, other workspaces, old views, archived prospects. */
describe('add-to-campaign: scheduling, races and isolation', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let bobsList: LeadListView;
  let bobsProspect: number;
  let bobsCampaign: Campaign;
  const { seedList, expectConsistent } = moveHelpers(() => ({ stack, alice }));

  beforeAll(async () => {
    ({ stack, alice, bob, bobsList, bobsProspect, bobsCampaign } = await startMoveWorld());
  });
  afterAll(async () => stack?.stop());

  it('schedules by the campaign’s status: ACTIVE now, PAUSED queued for resume, DRAFT waiting with a warning, COMPLETED made ACTIVE again; activate false waits', async () => {
    const { list, ids } = await seedList('Activation', [{}, {}, {}, {}, {}]);
    const flow = { root: 4242, nodes: { 4242: { kind: 'STEP' as const, type: 'NETWORK_INVITE', parent: null, child: null } }, redirects: {} };
    const active = await createCampaign(stack, alice, 'Active', { status: 'ACTIVE', flow });
    const paused = await createCampaign(stack, alice, 'Paused', { status: 'PAUSED', flow });
    const draft = await createCampaign(stack, alice, 'Draft', { flow });
    const completed = await createCampaign(stack, alice, 'Completed', { status: 'COMPLETED', flow });
    const later = await createCampaign(stack, alice, 'Active, not activated', { status: 'ACTIVE', flow });
    const move = (campaign: Campaign, id: number, activate?: boolean) =>
      addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: [id], ...(activate === undefined ? {} : { activate }) });

    const scheduled = await move(active, ids[0] as number, true);
    expect(scheduled.body).toMatchObject({ count: 1 });
    expect(scheduled.body.warning).toBeUndefined();
    const [item] = await campaignItems(stack, active.id);
    // Its first action, due now, in the engine's due-time index: carried by the campaign prospect
    // item until the engine first handles it (no action item yet).
    expect(item).toMatchObject({
      schedule: 'SCHEDULED',
      nodeId: 4242,
      nextActionAt: NOW,
      dueAt: NOW,
      gsi2pk: `DUE#${String(dueShard(ids[0] as number)).padStart(2, '0')}`,
      gsi2sk: `${NOW}#${padId(active.id)}#${padId(ids[0] as number)}`,
    });
    expect(item?.lsi2sk).toBeUndefined();
    expect(await engineAction(stack, active.id, ids[0] as number)).toBeUndefined();

    const queued = await move(paused, ids[1] as number, true);
    expect(queued.body.warning).toBeUndefined();
    expect((await campaignItems(stack, paused.id))[0]).toMatchObject({ schedule: 'QUEUED', nodeId: 4242, nextActionAt: null, lsi2sk: `UNSCHEDULED#${padId(ids[1] as number)}` });

    const waiting = await move(draft, ids[2] as number, true);
    expect(waiting.body).toMatchObject({ count: 1, warning: DRAFT_WARNING });
    expect((await campaignItems(stack, draft.id))[0]).toMatchObject({ schedule: 'WAITING', nodeId: 4242, nextActionAt: null });
    // A COMPLETED campaign runs again: it becomes ACTIVE and the prospect is scheduled.
    const reopened = await move(completed, ids[3] as number, true);
    expect(reopened.body).toMatchObject({ count: 1 });
    expect(reopened.body.warning).toBeUndefined();
    expect((await campaignItems(stack, completed.id))[0]).toMatchObject({ schedule: 'SCHEDULED', nodeId: 4242, nextActionAt: NOW });
    const status = await stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${completed.id}/`, { apiKey: alice.key });
    expect(status.body.campaign.status).toBe('ACTIVE');

    const notActivated = await move(later, ids[4] as number);
    expect(notActivated.body.warning).toBeUndefined();
    const [waitingItem] = await campaignItems(stack, later.id);
    expect(waitingItem).toMatchObject({ schedule: 'WAITING', nextActionAt: null, lsi2sk: `UNSCHEDULED#${padId(ids[4] as number)}` });
    expect(await engineAction(stack, later.id, ids[4] as number)).toBeUndefined();
    // Without activation even a DRAFT campaign gives no warning.
    expect((await addToCampaign(stack, alice, list.id, { campaign: draft.id, prospect_ids: [ids[4] as number], allow_duplicates: true })).body.warning).toBeUndefined();
  });

  it('leaves a COMPLETED campaign COMPLETED when a request with activate adds nobody: no one matching, a campaign import of invalid rows or without leads', async () => {
    const { list, ids } = await seedList('Nobody added', [{}]);
    const flow = { root: 4343, nodes: { 4343: { kind: 'STEP' as const, type: 'NETWORK_INVITE', parent: null, child: null } }, redirects: {} };
    const completed = await createCampaign(stack, alice, 'Completed, nobody added', { status: 'COMPLETED', flow });
    const statusOf = async () => (await stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${completed.id}/`, { apiKey: alice.key })).body.campaign.status;

    const none = await addToCampaign(stack, alice, list.id, { campaign: completed.id, filters: { first_name: 'Nobody' }, activate: true });
    expect(none.body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [] });
    expect(await statusOf()).toBe('COMPLETED');
    const importLeads = (body: Record<string, unknown>) => stack.call('POST', `/public/campaigns/${completed.id}/import/`, { apiKey: alice.key, body });
    const missing = await importLeads({ activate: true });
    expect(missing.status).toBe(400);
    expect(await statusOf()).toBe('COMPLETED');
    const invalid = await importLeads({ leads: [{ first_name: 'No', last_name: 'Url' }], activate: true });
    expect(invalid.body).toMatchObject({ success: true, count: 0, created: 0, updated: 0 });
    expect(invalid.body.warning).toBeUndefined();
    expect(await statusOf()).toBe('COMPLETED');
    expect(await prospectCount(stack, completed.id)).toBe(0);

    // Nor does a DRAFT campaign warn that prospects were added when none were.
    const draft = await createCampaign(stack, alice, 'Draft, nobody added', { flow });
    const nobody = await addToCampaign(stack, alice, list.id, { campaign: draft.id, prospect_ids: [99_999_999], activate: true });
    expect(nobody.body).toEqual({ success: true, count: 0, prospects: [], has_more: false, skipped: [{ id: 99_999_999, reason: 'not_in_list' }] });

    // Someone added: it runs again.
    expect((await addToCampaign(stack, alice, list.id, { campaign: completed.id, prospect_ids: [ids[0] as number], activate: true })).body).toMatchObject({ count: 1 });
    expect(await statusOf()).toBe('ACTIVE');
  });

  it('moves each prospect into exactly one campaign when two requests race, and both counts stay true', async () => {
    const { list, ids } = await seedList('Race', Array.from({ length: 30 }, () => ({})));
    for (const allowDuplicates of [false, true]) {
      const x = await createCampaign(stack, alice, `Race X ${allowDuplicates}`, { status: 'ACTIVE' });
      const y = await createCampaign(stack, alice, `Race Y ${allowDuplicates}`);
      const [toX, toY] = await Promise.all([
        addToCampaign(stack, alice, list.id, { campaign: x.id, prospect_ids: ids, prospects_per_company: 5, allow_duplicates: allowDuplicates, activate: true }),
        addToCampaign(stack, alice, list.id, { campaign: y.id, prospect_ids: [...ids].reverse(), prospects_per_company: 5, allow_duplicates: allowDuplicates }),
      ]);
      expect([toX.status, toY.status]).toEqual([200, 200]);
      const inX = (await campaignItems(stack, x.id)).map((item) => item.prospectId as number);
      const inY = (await campaignItems(stack, y.id)).map((item) => item.prospectId as number);
      expect([...inX, ...inY].sort()).toEqual([...ids].sort());
      expect(inX.filter((id) => inY.includes(id))).toEqual([]);
      expect((await prospectCount(stack, x.id)) + (await prospectCount(stack, y.id))).toBe(ids.length);
      await expectConsistent([x, y]);
      if (!allowDuplicates) {
        // Each request moved what it got first; the rest it reports as in the other campaign.
        expect(toX.body.count + toY.body.count).toBe(ids.length);
        expect([...toX.body.skipped, ...toY.body.skipped].every((skip) => skip.reason === 'in_other_campaign')).toBe(true);
      }
      // Ready for the next round: everyone out of X and Y.
      for (const campaign of [x, y]) {
        const removed = await stack.call<{ count: number }>('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: alice.key, body: { prospect_ids: ids } });
        expect(removed.status).toBe(200);
      }
    }
  });

  it('takes the next matches in place of those a racing request moved first, and reports none of them', async () => {
    const { list, ids } = await seedList('Amount race', Array.from({ length: 60 }, () => ({})));
    const campaign = await createCampaign(stack, alice, 'Amount race');
    const body = { campaign: campaign.id, amount: 20, prospects_per_company: 100 };
    const [first, second] = await Promise.all([addToCampaign(stack, alice, list.id, body), addToCampaign(stack, alice, list.id, body)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    // Both took 20 (the same digest offered both the first 20; the later writer took the next
    // ones), none twice, and neither reports the prospects the other moved (they were matches, not named).
    expect([first.body.count, second.body.count]).toEqual([20, 20]);
    expect([first.body.skipped, second.body.skipped]).toEqual([[], []]);
    expect([first.body.has_more, second.body.has_more]).toEqual([false, false]);
    const movedIds = [...first.body.prospects, ...second.body.prospects].map((prospect) => prospect.id);
    expect(new Set(movedIds).size).toBe(40);
    expect(movedIds.every((id) => ids.includes(id))).toBe(true);
    expect(await prospectCount(stack, campaign.id)).toBe(40);
    await expectConsistent([campaign]);
  });

  it('never reaches another workspace’s campaigns or prospects', async () => {
    const { list, ids } = await seedList('Isolation', [{}]);
    const campaign = await createCampaign(stack, alice, 'Isolation');
    const response = await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: [bobsProspect, ids[0]] });
    expect(response.body).toMatchObject({ count: 1, skipped: [{ id: bobsProspect, reason: 'not_in_list' }] });
    expect(await storedProspect(stack, bobsProspect)).toMatchObject({ status: 'NEW' });
    expect((await storedProspect(stack, bobsProspect))?.campaignId).toBeUndefined();
    expect((await addToCampaign(stack, bob, bobsList.id, { campaign: campaign.id, prospect_ids: [bobsProspect] })).body).toEqual({ error: 'Campaign not found' });
    expect(await prospectCount(stack, bobsCampaign.id)).toBe(0);
  });

  it('shows campaign_id null in views stored before prospects had campaigns', async () => {
    const { list, ids } = await seedList('Old views', [{ first_name: 'Olga' }]);
    const key = listMemberKey(list.id, ids[0] as number);
    const stored = (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item as Record<string, unknown>;
    const { campaign_id: _none, ...oldView } = JSON.parse(stored.view as string) as Record<string, unknown>;
    await stack.db.send(new PutCommand({ TableName: stack.tableName, Item: { ...stored, view: JSON.stringify(oldView) } }));
    for (const query of ['', 'first_name=olga']) {
      const [shown] = (await leadsOf(stack, alice, list.id, query)).prospects ?? [];
      expect(shown).toMatchObject({ id: ids[0], first_name: 'Olga', campaign_id: null });
    }
  });

  it('an archived prospect (delete-leads) leaves its campaign in the same write', async () => {
    const { list, ids } = await seedList('Archive', [{}, {}]);
    const campaign = await createCampaign(stack, alice, 'Archive', { status: 'ACTIVE' });
    await addToCampaign(stack, alice, list.id, { campaign: campaign.id, prospect_ids: ids, activate: true });
    expect(await prospectCount(stack, campaign.id)).toBe(2);
    const deleted = await stack.call<{ archived: number }>('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: alice.key, body: { prospect_ids: [ids[0]] } });
    expect(deleted.body.archived).toBe(1);
    expect(await prospectCount(stack, campaign.id)).toBe(1);
    expect((await campaignItems(stack, campaign.id)).map((item) => item.prospectId)).toEqual([ids[1]]);
    const stored = await storedProspect(stack, ids[0] as number);
    expect(stored?.status).toBe('ARCHIVED');
    expect(stored?.campaignId).toBeUndefined();
    // A campaign that is archived keeps its prospects until they are archived or moved.
    await setStatus(stack, campaign, 'ARCHIVED');
    await stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: alice.key, body: { prospect_ids: [ids[1]] } });
    expect(await prospectCount(stack, campaign.id)).toBe(0);
  });
});
