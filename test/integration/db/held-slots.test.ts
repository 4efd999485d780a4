import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { campaignMoveActions } from '../../../shared/db/campaign-prospects';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { makeDocClient } from '../../../shared/db/client';
import { campaignSendCounterKey, outreachActionKey } from '../../../shared/db/keys';
import { DynamoOutreachActions, outreachActionItem } from '../../../shared/db/outreach-actions';
import { DynamoSendCounters } from '../../../shared/db/send-counters';
import type { SlotReservation } from '../../../shared/domain/engine/action';
import { createCampaignSlots } from '../../../shared/domain/engine/held-slots';
import { createSlotReturns } from '../../../shared/domain/engine/slot-returns';
import { ManualClock } from '../../../shared/time/clock';
import type { Prospect } from '../../../shared/domain/leads/lead';
import type { LeadChange } from '../../../shared/domain/leads/ports';
import { actionWith } from '../../support/actions';

/**
 * A prospect leaving a campaign gives back the cap slot its pending action holds there
 * (shared/domain/engine/held-slots.ts): the slot is read consistently before the move, the move's
 * transaction deletes the action only at the version read, and only a written move gives it back.
 */
describe('slots held by the actions of prospects leaving a campaign', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `held${randomBytes(4).toString('hex')}`;
  const actions = new DynamoOutreachActions(db, tableName);
  const counters = new DynamoSendCounters(db, tableName);
  // No campaign item: a give-back finds no ACTIVE campaign and pulls nothing forward (pull-forward.test.ts does).
  const returns = createSlotReturns({ counters, actions, campaigns: new DynamoCampaignRepository(db, tableName), clock: new ManualClock('2026-12-01T09:00:00.000Z') });
  const slots = createCampaignSlots({ actions, slots: returns });
  const DAY = '2026-12-01';
  const reservation: SlotReservation = { day: DAY, kind: 'EMAIL', k: 3 };

  beforeAll(async () => ensureTable(db, tableName));
  afterAll(() => db.destroy());

  const putAction = (prospectId: number, fields: Parameters<typeof actionWith>[1]) =>
    db.send(new PutCommand({ TableName: tableName, Item: outreachActionItem(actionWith('2026-12-01T12:00:00.000Z', { campaignId: 800, prospectId, ...fields })) }));
  const stored = async (key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  /** The move's delete of the prospect's action (not of its campaign prospect item). */
  const actionDelete = (change: LeadChange) =>
    campaignMoveActions(tableName, change).filter((action) => action.Delete?.Key?.pk === outreachActionKey(800, change.after.id).pk);
  /** The positions held: those handed out (`n`) less those given back and not taken again (`free`). */
  const counter = async () => {
    const item = await stored(campaignSendCounterKey(800, DAY, 'EMAIL'));
    return Number(item?.n) - ((item?.free as Set<number> | undefined)?.size ?? 0);
  };
  /** A change taking prospect `id` out of campaign 800 (only what the campaign move reads of it). */
  const leaving = (id: number): LeadChange => ({
    after: { id } as Prospect,
    member: {} as LeadChange['member'],
    claim: [],
    release: [],
    refreshMembers: false,
    campaign: { leave: 800 },
  });

  it('reads the slots actions hold, and none of actions without one or of none at all', async () => {
    await putAction(1, { version: 3, reservation });
    await putAction(2, { version: 5, reservation: null });
    const changes = await slots.withHeldSlots([leaving(1), leaving(2), leaving(3)]);
    expect(changes.map((change) => change.campaign?.leaving)).toEqual([{ version: 3, reservation }, undefined, undefined]);
    // A change that stays in the campaign it "leaves" (a move into the same campaign) leaves nothing.
    const same = { ...leaving(1), campaign: { leave: 800, enter: { campaignId: 800 } as never } };
    expect((await slots.withHeldSlots([same]))[0]?.campaign?.leaving).toBeUndefined();
  });

  it('deletes the action only at the version read, and gives the slot back once the move is written', async () => {
    await putAction(10, { version: 3, reservation });
    await db.send(new UpdateCommand({ TableName: tableName, Key: campaignSendCounterKey(800, DAY, 'EMAIL'), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 4 } }));
    const [change] = (await slots.withHeldSlots([leaving(10)])) as [LeadChange];
    const deleteOfAction = actionDelete(change);
    expect(deleteOfAction).toHaveLength(1);

    // The engine writes the action after the read (a claim): the move's delete is refused.
    await db.send(new UpdateCommand({ TableName: tableName, Key: outreachActionKey(800, 10), UpdateExpression: 'SET version = :v', ExpressionAttributeValues: { ':v': 4 } }));
    await expect(db.send(new TransactWriteCommand({ TransactItems: deleteOfAction }))).rejects.toThrow(/ConditionalCheckFailed/);
    expect((await stored(outreachActionKey(800, 10)))?.version).toBe(4);

    // Read again, the move deletes it and gives its slot back (once: a change not written gives nothing).
    const [fresh] = (await slots.withHeldSlots([leaving(10)])) as [LeadChange];
    expect(fresh.campaign?.leaving).toEqual({ version: 4, reservation });
    await db.send(new TransactWriteCommand({ TransactItems: actionDelete(fresh) }));
    expect(await stored(outreachActionKey(800, 10))).toBeUndefined();
    await slots.giveBack([fresh]);
    await slots.giveBack([leaving(10)]);
    expect(await counter()).toBe(3);
  });

  it('deletes an action read without a slot only while it holds none, so a slot taken after the read is not lost', async () => {
    await putAction(20, { version: 2, reservation: null });
    // Four positions handed out, none given back (the test before left one given back).
    await db.send(new UpdateCommand({ TableName: tableName, Key: campaignSendCounterKey(800, DAY, 'EMAIL'), UpdateExpression: 'SET n = :n REMOVE #free', ExpressionAttributeNames: { '#free': 'free' }, ExpressionAttributeValues: { ':n': 4 } }));
    // Read without a slot (20), and not there yet (21: its first action still on the campaign prospect item).
    const [withNone, notThere] = (await slots.withHeldSlots([leaving(20), leaving(21)])) as [LeadChange, LeadChange];
    expect([withNone.campaign?.leaving, notThere.campaign?.leaving]).toEqual([undefined, undefined]);

    // The engine reserves a slot for each after the read: the move's deletes are refused.
    await putAction(20, { version: 3, reservation });
    await putAction(21, { version: 1, reservation: { ...reservation, k: 4 } });
    for (const change of [withNone, notThere]) {
      await expect(db.send(new TransactWriteCommand({ TransactItems: actionDelete(change) }))).rejects.toThrow(/ConditionalCheckFailed/);
    }
    expect([(await stored(outreachActionKey(800, 20)))?.version, (await stored(outreachActionKey(800, 21)))?.version]).toEqual([3, 1]);

    // Read again, the move deletes both and gives both slots back.
    const fresh = await slots.withHeldSlots([leaving(20), leaving(21)]);
    await db.send(new TransactWriteCommand({ TransactItems: fresh.flatMap(actionDelete) }));
    expect([await stored(outreachActionKey(800, 20)), await stored(outreachActionKey(800, 21))]).toEqual([undefined, undefined]);
    await slots.giveBack(fresh);
    expect(await counter()).toBe(2);

    // An action still without a slot, and none at all, are deleted as read.
    await putAction(22, { version: 7, reservation: null });
    const unheld = await slots.withHeldSlots([leaving(22), leaving(23)]);
    await db.send(new TransactWriteCommand({ TransactItems: unheld.flatMap(actionDelete) }));
    expect(await stored(outreachActionKey(800, 22))).toBeUndefined();
  });

  it('reads a wait past the cap with its place in line, deletes it only at that version, and hands the place to the latest wait', async () => {
    const pastCap = { day: '2026-11-30', kind: 'EMAIL' as const };
    const waitAt = (prospectId: number, dueAt: string, version: number) =>
      db.send(new PutCommand({ TableName: tableName, Item: outreachActionItem(actionWith(dueAt, { campaignId: 800, prospectId, version, pastCap })) }));
    await waitAt(30, '2026-12-01T13:00:00.000Z', 2);
    await waitAt(31, '2026-12-02T09:00:00.000Z', 1);
    await waitAt(32, '2026-12-03T09:00:00.000Z', 1);
    // Parked or claimed, an action holds no place in line (it is out of the index too).
    await putAction(33, { version: 1, pastCap, parked: 'CAMPAIGN_NOT_ACTIVE', dueAt: null });
    const claim = { token: 't', at: '2026-12-01T09:00:00.000Z', accountId: 1, kind: 'EMAIL' as const, accountDay: DAY, campaignDay: DAY };
    await putAction(34, { version: 1, pastCap, claim });
    const [change, parked, claimed] = (await slots.withHeldSlots([leaving(30), leaving(33), leaving(34)])) as [LeadChange, LeadChange, LeadChange];
    expect([change.campaign?.leaving, parked.campaign?.leaving, claimed.campaign?.leaving]).toEqual([
      { version: 2, reservation: null, inLine: { kind: 'EMAIL', dueAt: '2026-12-01T13:00:00.000Z' } },
      undefined,
      undefined,
    ]);

    // The engine writes it after the read (its slot came): the move's delete is refused.
    await db.send(new UpdateCommand({ TableName: tableName, Key: outreachActionKey(800, 30), UpdateExpression: 'SET version = :v', ExpressionAttributeValues: { ':v': 3 } }));
    await expect(db.send(new TransactWriteCommand({ TransactItems: actionDelete(change) }))).rejects.toThrow(/ConditionalCheckFailed/);

    const [fresh] = (await slots.withHeldSlots([leaving(30)])) as [LeadChange];
    await db.send(new TransactWriteCommand({ TransactItems: actionDelete(fresh) }));
    await slots.giveBack([fresh]);
    // The latest wait (Thursday's) now stands in the place left, still in line past the cap.
    expect(await stored(outreachActionKey(800, 32))).toMatchObject({
      dueAt: '2026-12-01T13:00:00.000Z',
      version: 2,
      pastCap,
      lsi3sk: `PASTCAP#EMAIL#2026-12-01T13:00:00.000Z#${'32'.padStart(16, '0')}`,
    });
    expect((await stored(outreachActionKey(800, 31)))?.dueAt).toBe('2026-12-02T09:00:00.000Z');
  });

  it('deletes an action read holding nothing only while it is not in line past the cap either, so a place taken after the read is handed on', async () => {
    await putAction(50, { version: 1 });
    const [read] = (await slots.withHeldSlots([leaving(50)])) as [LeadChange];
    expect(read.campaign?.leaving).toBeUndefined();
    // The engine writes it as a wait for a later day after the read (the cap reached): the move's delete is refused.
    await db.send(
      new PutCommand({ TableName: tableName, Item: outreachActionItem(actionWith('2026-12-02T13:00:00.000Z', { campaignId: 800, prospectId: 50, version: 2, pastCap: { day: DAY, kind: 'EMAIL' } })) }),
    );
    await expect(db.send(new TransactWriteCommand({ TransactItems: actionDelete(read) }))).rejects.toThrow(/ConditionalCheckFailed/);
    const [fresh] = (await slots.withHeldSlots([leaving(50)])) as [LeadChange];
    expect(fresh.campaign?.leaving).toEqual({ version: 2, reservation: null, inLine: { kind: 'EMAIL', dueAt: '2026-12-02T13:00:00.000Z' } });
  });

  it('a stop cancels a wait past the cap and says where it stood in line', async () => {
    await db.send(
      new PutCommand({ TableName: tableName, Item: outreachActionItem(actionWith('2026-12-02T13:00:00.000Z', { campaignId: 800, prospectId: 40, version: 4, pastCap: { day: DAY, kind: 'MESSAGE' } })) }),
    );
    expect(await actions.cancel(800, 40)).toEqual({ reservation: null, inLine: { kind: 'MESSAGE', dueAt: '2026-12-02T13:00:00.000Z' } });
    expect(await actions.cancel(800, 40)).toBeUndefined();
  });
});
