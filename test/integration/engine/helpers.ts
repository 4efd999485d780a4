import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { expect } from 'vitest';
import { toCampaignProspect } from '../../../shared/db/campaign-prospects';
import { actionOutcomeKey, campaignProspectKey, outreachActionKey } from '../../../shared/db/keys';
import { firstAction, outreachActionItem } from '../../../shared/db/outreach-actions';
import type { SendKind } from '../../../shared/domain/engine/action';
import { OUTREACH, OUTREACH_SCHEDULER } from '../../../shared/runtime/catalog';
import type { LocalStackOptions } from '../../../infra/local/local-stack';
import type { ManualClock } from '../../../shared/time/clock';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsStack, person } from '../leads/helpers';

/**
 * Playing campaigns with the injected clock: the scheduler is run by hand (as the local timer and
 * `POST /_local/clock` run it) and the queues are drained, so a test sees exactly what each moment
 * of the clock sends.
 */

export interface EngineWorld {
  stack: TestStack;
  ws: Workspace;
  mailbox: number;
  network: number;
  /** A second workspace of the same stack (isolation). */
  other: Workspace;
}

export async function engineWorld(clock: ManualClock, settings: LocalStackOptions['settings'] = {}): Promise<EngineWorld> {
  const { stack, alice, bob } = await leadsStack({ clock, settings });
  const register = async (providerAccountId: string) => {
    const response = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: alice.key, body: { provider_account_id: providerAccountId } });
    expect(response.status, response.text).toBe(201);
    return response.body.account.id;
  };
  return { stack, ws: alice, other: bob, mailbox: await register('sbx-mailbox-dev'), network: await register('sbx-network-dev') };
}

/** A sandbox account of either kind, registered in the workspace; its id in the workspace. */
export async function extraAccount(world: EngineWorld, type: 'LINKEDIN' | 'MAIL', id: string): Promise<number> {
  await world.stack.provider.control.createAccount({ id, type, name: id });
  const response = await world.stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: world.ws.key, body: { provider_account_id: id } });
  expect(response.status, response.text).toBe(201);
  return response.body.account.id;
}

/** A sending window open all day (00:00-23:59) every day of the week. */
export const EVERY_DAY_ALL_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, { enabled: true, start: '00:00', end: '23:59' }]),
);

/** An API call with the workspace's key that must succeed (2xx): its body. */
export function apiOf(world: () => EngineWorld) {
  return async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await world().stack.call<T>(method, path, { apiKey: world().ws.key, ...(body === undefined ? {} : { body }) });
    expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
    return response.body;
  };
}

export interface StepSpec {
  step_type: 'EMAIL' | 'NETWORK_INVITE' | 'NETWORK_MESSAGE';
  message_template?: string;
  subject_line?: string;
  message_template_b?: string;
  subject_line_b?: string;
  delay_in_hours?: number;
  add_unsubscribe?: boolean;
}

/** A campaign whose main path is these steps in order, with these settings; its id and step ids. */
export async function campaignWith(world: EngineWorld, name: string, steps: StepSpec[], settings: Record<string, unknown> = {}) {
  const { stack, ws } = world;
  const created = await stack.call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { apiKey: ws.key, body: { name } });
  expect(created.status, created.text).toBe(201);
  const id = created.body.campaign.id;
  const stepIds: number[] = [];
  for (const step of steps) {
    const body = { ...(step.step_type === 'EMAIL' ? { subject_line: 'Hello {{first_name}}', message_template: 'Hi {{first_name}}' } : {}), ...step };
    if (step.step_type === 'NETWORK_MESSAGE') body.message_template ??= 'Hi {{first_name}}';
    const added = await stack.call<{ step: { id: number } }>('POST', `/public/campaigns/${id}/steps/`, { apiKey: ws.key, body });
    expect(added.status, added.text).toBe(201);
    stepIds.push(added.body.step.id);
  }
  const patched = await stack.call('PATCH', `/public/campaigns/${id}/`, {
    apiKey: ws.key,
    body: { account_ids: [world.mailbox, world.network], ...settings },
  });
  expect(patched.status, patched.text).toBe(200);
  return { id, stepIds };
}

let rows = 0;

/** Prospects imported into a fresh list and moved into the campaign (waiting until it is activated); their ids in order. */
export async function prospectsIn(world: EngineWorld, campaignId: number, fields: Record<string, unknown>[], move: Record<string, unknown> = {}): Promise<number[]> {
  const { stack, ws } = world;
  const list = await createList(stack, ws, `list ${rows}`);
  const leads = fields.map((overrides) => {
    rows += 1;
    return person(rows, { email: `person${rows}@example.com`, ...overrides });
  });
  // The sandbox gives unknown profiles a varied network distance; these start as strangers.
  for (const lead of leads) {
    const publicId = /\/in\/([^/]+)$/.exec(String(lead.network_profile_url))?.[1];
    if (publicId) await stack.provider.control.setProfile(publicId, { network_distance: 'SECOND_DEGREE' });
  }
  const imported = await importLeads(stack, ws, list.id, { leads });
  const ids = imported.leads.map((lead) => lead.id);
  const moved = await stack.call<{ count: number }>('POST', `/public/lead-lists/${list.id}/add-to-campaign/`, {
    apiKey: ws.key,
    body: { campaign: campaignId, prospect_ids: ids, allow_duplicates: true, ...move },
  });
  expect(moved.status, moved.text).toBe(200);
  expect(moved.body.count).toBe(ids.length);
  return ids;
}

const scheduledEvent = { 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as ScheduledEvent;

/** Runs the scheduler and drains the queues until nothing more is due at the clock's time. */
export async function play(stack: TestStack): Promise<void> {
  const scheduler = stack.functions.schedules[OUTREACH_SCHEDULER.name];
  if (!scheduler) throw new Error('no outreach scheduler');
  for (let round = 0; round < 20; round += 1) {
    const scheduled = await stack.drain('campaign-scheduling');
    const report = (await scheduler(scheduledEvent, {} as Context)) as { dispatched: number };
    const sent = await stack.drain(OUTREACH.name, 100);
    if (scheduled === 0 && report.dispatched === 0 && sent === 0) return;
  }
  throw new Error('the engine did not settle in 20 rounds');
}

/** One run of the scheduler and one drain of the outreach queue (no waiting for the engine to settle). */
export async function tick(stack: TestStack): Promise<void> {
  const scheduler = stack.functions.schedules[OUTREACH_SCHEDULER.name];
  if (!scheduler) throw new Error('no outreach scheduler');
  await scheduler(scheduledEvent, {} as Context);
  await stack.drain(OUTREACH.name, 100);
}

/** Moves the clock and plays what came due. */
export async function advance(stack: TestStack, clock: ManualClock, hours: number): Promise<void> {
  clock.advance(hours * 3_600_000);
  await play(stack);
}

/** Moves the clock to a time and plays what came due. */
export async function playAt(stack: TestStack, clock: ManualClock, at: string): Promise<void> {
  clock.set(at);
  await play(stack);
}

export async function activate(world: EngineWorld, campaignId: number): Promise<void> {
  const response = await world.stack.call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey: world.ws.key });
  expect(response.status, response.text).toBe(200);
  await play(world.stack);
}

export const sandboxSent = async (stack: TestStack) => (await stack.provider.control.state()).sent;

/** When the sandbox sent items of a kind (through an account), sorted. */
export const sentAt = async (world: EngineWorld, kind: string, accountId?: string) =>
  (await sandboxSent(world.stack)).filter((item) => item.kind === kind && (accountId === undefined || item.accountId === accountId)).map((item) => item.at).sort();

/** The emails the sandbox sent through an account, as `<to> <at>`, sorted. */
export const emailsFrom = async (world: EngineWorld, accountId: string) =>
  (await sandboxSent(world.stack))
    .filter((item) => item.kind === 'email' && item.accountId === accountId)
    .map((item) => `${item.to} ${item.at}`)
    .sort();

/** The outcome records of a campaign, in key order. */
export async function outcomesOf(stack: TestStack, campaignId: number): Promise<Record<string, unknown>[]> {
  const { Items } = await stack.db.send(
    new QueryCommand({
      TableName: stack.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': actionOutcomeKey(campaignId, 0, '', 0).pk },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** The engine's pending actions of a campaign. */
export async function actionsOf(stack: TestStack, campaignId: number): Promise<Record<string, unknown>[]> {
  const { Items } = await stack.db.send(
    new QueryCommand({
      TableName: stack.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': outreachActionKey(campaignId, 0).pk },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

export async function campaignStatus(world: EngineWorld, campaignId: number): Promise<string> {
  const response = await world.stack.call<{ campaign: { status: string } }>('GET', `/public/campaigns/${campaignId}/`, { apiKey: world.ws.key });
  return response.body.campaign.status;
}

export async function prospectStatuses(world: EngineWorld, campaignId: number): Promise<Record<number, { status: string; last_error: string | null }>> {
  const response = await world.stack.call<{ prospects: { id: number; status: string; last_error: string | null }[] }>(
    'GET',
    `/public/campaigns/${campaignId}/prospects/`,
    { apiKey: world.ws.key },
  );
  expect(response.status, response.text).toBe(200);
  return Object.fromEntries(response.body.prospects.map((p) => [p.id, { status: p.status, last_error: p.last_error }]));
}

/** Adds a condition under a step, with a step on each branch given; the new node ids. */
export async function withCondition(
  world: EngineWorld,
  campaignId: number,
  parentStepId: number,
  condition: { condition_type: 'HAS_EMAIL' | 'HAS_EMAIL_PREMIUM' | 'ACCEPTED_INVITE' | 'ALREADY_CONNECTED'; delay_in_hours?: number },
  branches: { YES?: StepSpec; NO?: StepSpec },
): Promise<{ conditionId: number; yes?: number; no?: number }> {
  const { stack, ws } = world;
  const added = await stack.call<{ condition: { id: number } }>('POST', `/public/campaigns/${campaignId}/conditions/`, {
    apiKey: ws.key,
    body: { parent_step_id: parentStepId, delay_in_hours: 0, ...condition },
  });
  expect(added.status, added.text).toBe(201);
  const conditionId = added.body.condition.id;
  const ids: { yes?: number; no?: number } = {};
  for (const branch of ['YES', 'NO'] as const) {
    const step = branches[branch];
    if (!step) continue;
    const body = { ...(step.step_type === 'EMAIL' ? { subject_line: 'Hello {{first_name}}', message_template: 'Hi {{first_name}}' } : {}), ...step };
    if (step.step_type === 'NETWORK_MESSAGE') body.message_template ??= 'Hi {{first_name}}';
    const created = await stack.call<{ step: { id: number } }>('POST', `/public/campaigns/${campaignId}/steps/`, {
      apiKey: ws.key,
      body: { delay_in_hours: 0, ...body, parent_condition_id: conditionId, branch },
    });
    expect(created.status, created.text).toBe(201);
    ids[branch === 'YES' ? 'yes' : 'no'] = created.body.step.id;
  }
  return { conditionId, ...ids };
}

/** What the sandbox sent, as `[kind, subject or text, at]`, in order. */
export const sentSummary = async (stack: TestStack) =>
  (await sandboxSent(stack)).map((item) => [item.kind, item.kind === 'email' ? item.subject : item.text, item.at] as const);

/**
 * What a sender that claimed a first action and then crashed leaves: the claim is the first write
 * of a first action, so its transaction put the claimed action item and took the due-time keys off
 * the campaign prospect item. The action as claimed.
 */
export async function claimedAndCrashed(stack: TestStack, clock: ManualClock, campaignId: number, prospectId: number, kind: SendKind, accountId: number, text?: string) {
  const at = clock.now().toISOString();
  const key = campaignProspectKey(campaignId, prospectId);
  const { Item } = await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: key, ConsistentRead: true }));
  const pending = firstAction(toCampaignProspect(Item as Record<string, unknown>), Item?.dueAt as string);
  const claim = { token: 'crashed', at, accountId, kind, accountDay: at.slice(0, 10), campaignDay: at.slice(0, 10), ...(text === undefined ? {} : { text }) } as const;
  await stack.db.send(
    new TransactWriteCommand({
      TransactItems: [
        // As the engine's first write of a first action: it keeps when the prospect was scheduled (sender-writes.ts, bump).
        { Put: { TableName: stack.tableName, Item: outreachActionItem({ ...pending, lastActionAt: pending.dueAt, reachedAt: pending.dueAt, claim, version: 1 }) } },
        { Update: { TableName: stack.tableName, Key: key, UpdateExpression: 'REMOVE gsi2pk, gsi2sk, dueAt' } },
      ],
    }),
  );
  return { ...pending, claim };
}
