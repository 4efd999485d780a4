import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { campaignProspectItem } from '../../../shared/db/campaign-prospects';
import { makeDocClient } from '../../../shared/db/client';
import { campaignProspectKey, outreachActionKey } from '../../../shared/db/keys';
import { DynamoOutreachActions, firstAction, outreachActionItem } from '../../../shared/db/outreach-actions';
import type { CampaignProspect } from '../../../shared/domain/campaigns/campaign-prospect';

/**
 * A prospect's first action is carried by its campaign prospect item until the engine first
 * handles it (shared/db/outreach-actions.ts): found in the due-time index like any action, read as
 * version 0, written once (the action put and the campaign prospect's keys removed in one
 * transaction), and never written from a read that anything overtook.
 */
describe('a first action carried by its campaign prospect item', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `first${randomBytes(4).toString('hex')}`;
  const actions = new DynamoOutreachActions(db, tableName);
  const DUE = '2026-11-23T09:00:00.000Z';
  let nextProspect = 7_000_000;

  beforeAll(async () => ensureTable(db, tableName));
  afterAll(() => db.destroy());

  /** A prospect moved into campaign 900 with activation: scheduled, its first action due at DUE on node 11. */
  async function scheduled(overrides: Partial<CampaignProspect> = {}): Promise<CampaignProspect> {
    nextProspect += 1;
    const prospect: CampaignProspect = {
      campaignId: 900,
      prospectId: nextProspect,
      workspaceId: 5,
      status: 'IN_REVIEW',
      nodeId: 11,
      schedule: 'SCHEDULED',
      nextActionAt: DUE,
      lastError: null,
      companyId: null,
      addedAt: '2026-11-23T08:00:00.000Z',
      updatedAt: '2026-11-23T08:00:00.000Z',
      ...overrides,
    };
    await db.send(new PutCommand({ TableName: tableName, Item: campaignProspectItem(prospect) }));
    return prospect;
  }
  const stored = async (key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  const dueRefs = async () => {
    const refs = [];
    for (let shard = 0; shard < actions.shards; shard += 1) refs.push(...(await actions.due(shard, '2026-11-23T10:00:00.000Z', undefined, 100)).refs);
    return refs.filter((ref) => ref.campaignId === 900);
  };

  it('is found in the due-time index as a first action, read as version 0, and written once', async () => {
    const prospect = await scheduled();
    const ref = (await dueRefs()).find((found) => found.prospectId === prospect.prospectId);
    expect(ref).toEqual({ campaignId: 900, prospectId: prospect.prospectId, workspaceId: 5, dueAt: DUE, first: true });
    expect(await actions.get(900, prospect.prospectId)).toBeUndefined();

    const pending = await actions.pending(900, prospect.prospectId);
    expect(pending).toEqual({
      campaignId: 900,
      prospectId: prospect.prospectId,
      workspaceId: 5,
      stint: '2026-11-23T08:00:00.000Z',
      version: 0,
      nodeId: 11,
      dueAt: DUE,
      parked: null,
      claim: null,
      reservation: null,
      attempts: 0,
      lastError: null,
      lastActionAt: null,
      reachedAt: null,
      waitingForDelay: false,
      alreadyConnected: false,
      answerLost: null,
      started: false,
      atEntry: true,
      done: [],
      accounts: {},
      networkProviderId: null,
      updatedAt: DUE,
    });
    const first = pending as NonNullable<typeof pending>;
    const waiting = { ...first, dueAt: '2026-11-23T09:30:00.000Z', updatedAt: '2026-11-23T09:00:00.000Z' };
    // Two deliveries write it at once: one wins.
    expect((await Promise.all([actions.replace(first, waiting), actions.replace(first, { ...waiting, dueAt: '2026-11-23T09:45:00.000Z' })])).sort()).toEqual([false, true]);
    const action = await actions.get(900, prospect.prospectId);
    expect(action?.version).toBe(1);
    expect(['2026-11-23T09:30:00.000Z', '2026-11-23T09:45:00.000Z']).toContain(action?.dueAt);
    // The campaign prospect carries it no more: one entry in the index, the action's own.
    const item = await stored(campaignProspectKey(900, prospect.prospectId));
    expect([item?.dueAt, item?.gsi2pk, item?.gsi2sk]).toEqual([undefined, undefined, undefined]);
    expect(item).toMatchObject({ schedule: 'SCHEDULED', status: 'IN_REVIEW', nextActionAt: DUE });
    expect(await actions.pending(900, prospect.prospectId)).toBeUndefined();
    expect((await dueRefs()).filter((found) => found.prospectId === prospect.prospectId)).toEqual([
      { campaignId: 900, prospectId: prospect.prospectId, workspaceId: 5, dueAt: action?.dueAt },
    ]);
  });

  it('cannot be written once anything took it away after it was read: a stop, a move out, another delivery that wrote and finished it', async () => {
    const claim = { token: 't', at: DUE, accountId: 3, kind: 'EMAIL' as const, accountDay: '2026-11-23', campaignDay: '2026-11-23' };
    const readFirst = async (prospectId: number) => (await actions.pending(900, prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.pending>>>;

    // A reply or unsubscribe stops the sequence between a delivery's read and its claim.
    const stopped = await scheduled();
    const readBeforeStop = await readFirst(stopped.prospectId);
    expect(await actions.cancel(900, stopped.prospectId)).toEqual({ reservation: null });
    expect(await actions.replace(readBeforeStop, { ...readBeforeStop, claim })).toBe(false);
    expect(await stored(outreachActionKey(900, stopped.prospectId))).toBeUndefined();

    // The prospect leaves the campaign (its campaign prospect item is deleted with the move).
    const moved = await scheduled();
    const readBeforeMove = await readFirst(moved.prospectId);
    await db.send(new DeleteCommand({ TableName: tableName, Key: campaignProspectKey(900, moved.prospectId) }));
    expect(await actions.replace(readBeforeMove, { ...readBeforeMove, claim })).toBe(false);
    expect(await stored(outreachActionKey(900, moved.prospectId))).toBeUndefined();

    // ... and comes back (a new stint) at the same due time: the old read still cannot write.
    const back = await scheduled({ prospectId: moved.prospectId, addedAt: '2026-11-23T08:30:00.000Z' });
    expect(await actions.replace(readBeforeMove, { ...readBeforeMove, claim })).toBe(false);
    expect(await actions.remove(readBeforeMove)).toBe(false);
    expect((await actions.pending(900, back.prospectId))?.stint).toBe('2026-11-23T08:30:00.000Z');

    // Two deliveries read it; the first writes it, sends, and its sequence ends (the action is deleted): the second cannot write it again.
    const twice = await scheduled();
    const [first, second] = [await readFirst(twice.prospectId), await readFirst(twice.prospectId)];
    expect(await actions.replace(first, { ...first, claim })).toBe(true);
    expect(await actions.remove((await actions.get(900, twice.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.get>>>)).toBe(true);
    expect(await actions.replace(second, { ...second, claim: { ...claim, token: 'second' } })).toBe(false);
    expect(await stored(outreachActionKey(900, twice.prospectId))).toBeUndefined();
  });

  it('an action item beside keys that still hold is the one that counts: a write from the keys fails and removes them', async () => {
    const prospect = await scheduled();
    const first = (await actions.pending(900, prospect.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.pending>>>;
    // A state the first write (one transaction) never leaves: written by hand here.
    const claim = { token: 't', at: DUE, accountId: 3, kind: 'EMAIL' as const, accountDay: '2026-11-23', campaignDay: '2026-11-23' };
    await db.send(new PutCommand({ TableName: tableName, Item: outreachActionItem({ ...first, version: 1, claim }) }));
    const again = (await actions.pending(900, prospect.prospectId)) as typeof first;
    expect(again.version).toBe(0);
    expect(await actions.replace(again, { ...again, claim: { ...claim, token: 'second' } })).toBe(false);
    expect((await actions.get(900, prospect.prospectId))?.claim?.token).toBe('t');
    expect((await stored(campaignProspectKey(900, prospect.prospectId)))?.dueAt).toBeUndefined();
    expect(await actions.pending(900, prospect.prospectId)).toBeUndefined();
  });

  it('a prospect whose sequence was stopped has nothing pending, and cannot be written from keys it kept; the keys are removed', async () => {
    const prospect = await scheduled();
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: campaignProspectKey(900, prospect.prospectId),
        UpdateExpression: 'SET #status = :stopped',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':stopped': 'REPLIED' },
      }),
    );
    const readBefore = firstAction(prospect, DUE);
    expect(await actions.replace(readBefore, { ...readBefore, dueAt: '2026-11-23T09:30:00.000Z' })).toBe(false);
    expect(await stored(outreachActionKey(900, prospect.prospectId))).toBeUndefined();
    expect(await actions.pending(900, prospect.prospectId)).toBeUndefined();
    expect((await stored(campaignProspectKey(900, prospect.prospectId)))?.gsi2pk).toBeUndefined();
  });

  it('is still pending for a prospect the engine set IN_PROGRESS before writing it (a first step skipped)', async () => {
    const skipped = await scheduled({ status: 'IN_PROGRESS' });
    const first = (await actions.pending(900, skipped.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.pending>>>;
    expect(first.version).toBe(0);
    expect(await actions.replace(first, { ...first, nodeId: 12, dueAt: '2026-11-24T09:00:00.000Z', started: true })).toBe(true);
    expect(await actions.get(900, skipped.prospectId)).toMatchObject({ version: 1, nodeId: 12, started: true });
    expect((await stored(campaignProspectKey(900, skipped.prospectId)))?.dueAt).toBeUndefined();
  });

  it('takes its own write sent again after it landed (the SDK retrying a lost answer) as written, and another write from the same read as lost', async () => {
    const prospect = await scheduled();
    const first = (await actions.pending(900, prospect.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.pending>>>;
    const claim = { token: 'claim-a', at: DUE, accountId: 3, kind: 'EMAIL' as const, accountDay: '2026-11-23', campaignDay: '2026-11-23' };
    // The first write (the transaction), then the same transaction again: its answer was lost.
    expect(await actions.replace(first, { ...first, claim })).toBe(true);
    expect(await actions.replace(first, { ...first, claim })).toBe(true);
    // Another delivery's claim from the same read lost the race.
    expect(await actions.replace(first, { ...first, claim: { ...claim, token: 'claim-b' } })).toBe(false);
    const claimed = (await actions.get(900, prospect.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.get>>>;
    expect(claimed).toMatchObject({ version: 1, claim });

    // A later write (a Put conditional on the version), sent twice: written once, taken as written both times.
    const sent = { ...claimed, claim: null, nodeId: 12, dueAt: '2026-11-24T09:00:00.000Z', started: true };
    expect(await actions.replace(claimed, sent)).toBe(true);
    expect(await actions.replace(claimed, sent)).toBe(true);
    expect(await actions.replace(claimed, { ...sent, nodeId: 13 })).toBe(false);
    expect(await actions.get(900, prospect.prospectId)).toMatchObject({ version: 2, nodeId: 12, claim: null });
  });

  it('takes a write that landed though its caller saw an error (the SDK out of retries) as written, and one that did not land as failed', async () => {
    // A client whose next answer is lost after DynamoDB wrote: the caller gets an error instead.
    const lossy = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
    let loseNextAnswer = false;
    lossy.middlewareStack.add(
      (next) => async (args) => {
        const output = await next(args);
        if (loseNextAnswer) {
          loseNextAnswer = false;
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        }
        return output;
      },
      { step: 'initialize', name: 'loseAnswer' },
    );
    const lossyActions = new DynamoOutreachActions(lossy, tableName);
    try {
      const prospect = await scheduled();
      const first = (await actions.pending(900, prospect.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.pending>>>;
      const claim = { token: 'claim-lost', at: DUE, accountId: 3, kind: 'EMAIL' as const, accountDay: '2026-11-23', campaignDay: '2026-11-23' };
      loseNextAnswer = true;
      expect(await lossyActions.replace(first, { ...first, claim })).toBe(true);
      const claimed = (await actions.get(900, prospect.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.get>>>;
      loseNextAnswer = true;
      expect(await lossyActions.replace(claimed, { ...claimed, claim: null, nodeId: 12 })).toBe(true);
      expect(await actions.get(900, prospect.prospectId)).toMatchObject({ version: 2, nodeId: 12, claim: null });
      // A write that did not land (its condition failed first) still fails, with its own answer.
      expect(await lossyActions.replace(claimed, { ...claimed, nodeId: 13 })).toBe(false);
    } finally {
      lossy.destroy();
    }
  });

  it('is removed or cancelled by taking the keys off the campaign prospect', async () => {
    const ended = await scheduled();
    const first = (await actions.pending(900, ended.prospectId)) as NonNullable<Awaited<ReturnType<typeof actions.pending>>>;
    // A removal with a due time it no longer has changes nothing.
    expect(await actions.remove({ ...first, dueAt: '2026-11-23T11:00:00.000Z' })).toBe(false);
    expect((await stored(campaignProspectKey(900, ended.prospectId)))?.dueAt).toBe(DUE);
    expect(await actions.remove(first)).toBe(true);
    expect(await actions.remove(first)).toBe(false);
    expect(await stored(campaignProspectKey(900, ended.prospectId))).toMatchObject({ status: 'IN_REVIEW', schedule: 'SCHEDULED' });
    expect((await stored(campaignProspectKey(900, ended.prospectId)))?.gsi2pk).toBeUndefined();
    expect(await stored(outreachActionKey(900, ended.prospectId))).toBeUndefined();

    const stopped = await scheduled();
    expect(await actions.cancel(900, stopped.prospectId)).toEqual({ reservation: null });
    expect((await stored(campaignProspectKey(900, stopped.prospectId)))?.dueAt).toBeUndefined();
    expect(await actions.cancel(900, stopped.prospectId)).toBeUndefined();
    // A campaign prospect that was never scheduled has nothing to cancel, and is left as it is.
    const waiting = await scheduled({ schedule: 'WAITING', nextActionAt: null });
    expect(await actions.cancel(900, waiting.prospectId)).toBeUndefined();
    expect(await stored(campaignProspectKey(900, waiting.prospectId))).toMatchObject({ schedule: 'WAITING', lsi2sk: `UNSCHEDULED#${String(waiting.prospectId).padStart(16, '0')}` });
    expect((await dueRefs()).filter((ref) => [ended.prospectId, stopped.prospectId, waiting.prospectId].includes(ref.prospectId))).toEqual([]);
  });
});
