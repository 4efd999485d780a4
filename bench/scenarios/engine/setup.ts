import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../../../shared/db/client';
import { toCampaignProspect } from '../../../shared/db/campaign-prospects';
import { itemSize } from '../../../shared/db/item-size';
import { campaignProspectKey, leadListKey, outreachActionKey, workspaceLeadCountsKey } from '../../../shared/db/keys';
import { firstAction as pendingFirst, outreachActionItem } from '../../../shared/db/outreach-actions';
import { CAMPAIGN_SCHEDULING } from '../../../shared/runtime/catalog';
import type { BenchContext } from '../../lib';
import { ACCOUNT_LIMIT, CAP, MAILBOXES, PER_REQUEST, PROSPECTS, STEPS, STEP_DELAY_HOURS, lead } from './config';

/** Answers a request's body, or throws when its status is not `status`. */
export const ok = (response: { status: number; body: any }, what: string, status = 200) => {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
  return response.body;
};

/**
 * The campaign the bench runs (not measured): mailboxes, the campaign and its step and settings,
 * the prospects imported into a list and moved into the campaign, the campaign activated and its
 * scheduling queue drained, so every prospect has an action due at START (its first action,
 * carried by its campaign prospect item until the engine first handles it).
 */
export async function setUp(context: BenchContext) {
  const { call, user, stack } = context;
  const apiKey = user.apiKey;
  const setupStarted = performance.now();
  const accountIds: number[] = [];
  for (let i = 0; i < MAILBOXES; i += 1) {
    const id = `sbx-engine-bench-${i}`;
    await stack.provider.control.createAccount({ id, type: 'MAIL', name: `Engine bench ${i}` });
    const registered = ok(await call('POST', '/public/accounts/', { apiKey, body: { provider_account_id: id } }), 'register account', 201);
    accountIds.push(registered.account.id);
    ok(await call('PATCH', `/public/accounts/${registered.account.id}/`, { apiKey, body: { daily_limits: { emails: ACCOUNT_LIMIT } } }), 'account limits');
  }
  const campaignId: number = ok(await call('POST', '/public/campaigns/', { apiKey, body: { name: 'Engine bench' } }), 'campaign', 201).campaign.id;
  for (let step = 0; step < STEPS; step += 1) {
    ok(
      await call('POST', `/public/campaigns/${campaignId}/steps/`, {
        apiKey,
        body: {
          step_type: 'EMAIL',
          subject_line: step === 0 ? 'A question for {{company_name}}, {{first_name}}' : `Following up (${step + 1}), {{first_name}}`,
          message_template: '<p>Hi {{first_name}},</p><p>I saw that you are {{job_title}} at {{company_name}} in {{location}}. Could we talk for 15 minutes next week?</p><p>Best regards</p>',
          ...(step === 0 ? {} : { delay_in_hours: STEP_DELAY_HOURS }),
        },
      }),
      'step',
      201,
    );
  }
  const allDay = { enabled: true, start: '00:00', end: '23:59' };
  ok(
    await call('PATCH', `/public/campaigns/${campaignId}/`, {
      apiKey,
      body: {
        account_ids: accountIds,
        timezone: 'UTC',
        email_max_messages: CAP,
        sending_window: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, allDay])),
      },
    }),
    'campaign settings',
  );
  const listId: number = ok(await call('POST', '/public/lead-lists', { apiKey, body: { name: 'Engine bench' } }), 'list', 201).lead_list.id;
  for (let start = 0; start < PROSPECTS; start += PER_REQUEST) {
    const leads = Array.from({ length: Math.min(PER_REQUEST, PROSPECTS - start) }, (_, i) => lead(start + i));
    const body = ok(await call('POST', `/public/lead-lists/${listId}/import`, { apiKey, body: { leads } }), 'import');
    if (body.created !== leads.length) throw new Error(`import created ${body.created} of ${leads.length}`);
  }
  let moved = 0;
  for (let request = 0; moved < PROSPECTS; request += 1) {
    if (request > PROSPECTS / PER_REQUEST + 2) throw new Error('add-to-campaign never ended');
    const body = ok(
      await call('POST', `/public/lead-lists/${listId}/add-to-campaign`, { apiKey, body: { campaign: campaignId, amount: 0, prospects_per_company: 1000 } }),
      'add-to-campaign',
    );
    moved += body.count;
    if (!body.has_more) break;
  }
  if (moved !== PROSPECTS) throw new Error(`moved ${moved} of ${PROSPECTS}`);
  ok(await call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey }), 'activate');
  const scheduling = stack.queues[CAMPAIGN_SCHEDULING.name];
  if (!scheduling) throw new Error('no campaign-scheduling queue');
  while ((await stack.poller.pollOnce(scheduling)) > 0);
  // Actions not finished: the action items, and the first actions campaign prospect items still carry (pendingFirstAction).
  const countActions = async () =>
    (await countMatching(stack, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': outreachActionKey(campaignId, 0).pk } })) +
    (await countMatching(stack, {
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'attribute_exists(dueAt)',
      ExpressionAttributeValues: { ':pk': campaignProspectKey(campaignId, 0).pk },
    }));
  const scheduled = await countActions();
  if (scheduled !== PROSPECTS) throw new Error(`${scheduled} actions after activation, expected ${PROSPECTS}`);
  const setupMs = performance.now() - setupStarted;
  return { campaignId, listId, setupMs, countActions };
}

/** Sizes of the items the status write changes (and of an action, while there is one). */
export async function itemSizes(stack: BenchContext['stack'], campaignId: number, listId: number, workspaceId: number, withAction = true) {
  const get = async (key: { pk: string; sk: string }) =>
    (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }))).Item as Record<string, unknown> | undefined;
  // The first campaign prospect, and its action as stored or, while its campaign prospect carries it, as its first write will put it.
  const campaignProspect = withAction
    ? ((
        await stack.db.send(
          new QueryCommand({ TableName: stack.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': campaignProspectKey(campaignId, 0).pk }, Limit: 1 }),
        )
      ).Items?.[0] as Record<string, unknown> | undefined)
    : undefined;
  const stored = campaignProspect ? await get(outreachActionKey(campaignId, Number(campaignProspect.prospectId))) : undefined;
  const firstAction =
    stored ??
    (campaignProspect && typeof campaignProspect.dueAt === 'string'
      ? outreachActionItem({ ...pendingFirst(toCampaignProspect(campaignProspect), campaignProspect.dueAt), version: 1 })
      : undefined);
  const digest = await stack.db.send(
    new QueryCommand({
      TableName: stack.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `LEADLIST#${String(listId).padStart(16, '0')}#MEMBERS`, ':prefix': 'DIGEST' },
      ConsistentRead: true,
    }),
  );
  const list = await get(leadListKey(workspaceId, listId));
  const leadCounts = await get(workspaceLeadCountsKey(workspaceId));
  const tokens = (item: Record<string, unknown> | undefined) => (item?.openJournals instanceof Set ? item.openJournals.size : 0);
  const sizeOf = (item: Record<string, unknown> | undefined) => (item ? itemSize(item) : 0);
  return {
    action: sizeOf(firstAction),
    // As the status write finds it: without the first action's keys.
    campaignProspect: campaignProspect ? sizeOf(Object.fromEntries(Object.entries(campaignProspect).filter(([name]) => !['gsi2pk', 'gsi2sk', 'dueAt'].includes(name)))) : 0,
    list: sizeOf(list),
    listTokens: tokens(list),
    leadCounts: sizeOf(leadCounts),
    leadCountsTokens: tokens(leadCounts),
    digestChunks: ((digest.Items ?? []) as Record<string, unknown>[]).map((chunk) => itemSize(chunk)),
  };
}

/** How many items a Query of the table matches, page by page (Select COUNT: no items read back). */
async function countMatching(stack: BenchContext['stack'], input: Omit<QueryCommandInput, 'TableName' | 'Select' | 'ExclusiveStartKey'>): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await stack.db.send(new QueryCommand({ ...input, TableName: stack.tableName, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

export async function countOutcomes(stack: BenchContext['stack'], campaignId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const outcomes = await queryAll(stack.db, {
    TableName: stack.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `CAMPAIGN#${String(campaignId).padStart(16, '0')}#OUTCOMES` },
    ProjectionExpression: 'outcome',
  });
  for (const item of outcomes) counts[String(item.outcome)] = (counts[String(item.outcome)] ?? 0) + 1;
  return counts;
}
