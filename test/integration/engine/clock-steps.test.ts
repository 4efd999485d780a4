import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, campaignStatus, campaignWith, engineWorld, prospectStatuses, prospectsIn, sandboxSent } from './helpers';

/**
 * `POST /_local/clock` over real HTTP: a move of a week plays the week, stepping through every due
 * time on the way, so follow-ups that a send made on the way brings due go out too.
 */
describe('moving the local clock plays out the time in between', () => {
  // Monday 2026-11-30, 09:00 in Amsterdam: the default window is open.
  const clock = new ManualClock('2026-11-30T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const moveClock = async (body: unknown) => {
    const response = await fetch(`${world.stack.baseUrl}/_local/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  it('sends a flow of daily follow-ups when the clock moves a week at once', async () => {
    const campaign = await campaignWith(world, 'A week at once', [
      { step_type: 'EMAIL', subject_line: 'Week one' },
      { step_type: 'EMAIL', subject_line: 'Week two', delay_in_hours: 24 },
      { step_type: 'EMAIL', subject_line: 'Week three', delay_in_hours: 72 },
    ]);
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await moveClock({ advance_hours: 168 })).toEqual({ status: 200, body: { now: '2026-12-07T08:00:00.000Z' } });
    const sent = (await sandboxSent(world.stack)).filter((item) => item.kind === 'email').map((item) => [item.subject, item.at]);
    // The third is due Friday 08:00 UTC, 72 hours after Tuesday's: each at its own time, not all at the end.
    expect(sent).toEqual([
      ['Week one', '2026-11-30T08:00:00.000Z'],
      ['Week two', '2026-12-01T08:00:00.000Z'],
      ['Week three', '2026-12-04T08:00:00.000Z'],
    ]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [id as number]: { status: 'FINISHED', last_error: null } });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('passes over an action that stays due instead of stepping a minute at a time past it', async () => {
    const campaign = await campaignWith(world, 'Past a stuck one', [
      { step_type: 'EMAIL', subject_line: 'Stuck one' },
      { step_type: 'EMAIL', subject_line: 'Stuck two', delay_in_hours: 24 },
      { step_type: 'EMAIL', subject_line: 'Stuck three', delay_in_hours: 72 },
    ]);
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    // An entry of the due-time index whose action does not exist: the sender ignores it, so it stays
    // due however often the scheduler hands it out (as a claim in flight would, for a while).
    const stuckAt = clock.now().toISOString();
    await world.stack.db.send(
      new PutCommand({
        TableName: world.stack.tableName,
        Item: {
          pk: 'TEST#stuck',
          sk: 'TEST#stuck',
          entityType: 'OutreachAction',
          gsi2pk: 'DUE#00',
          gsi2sk: `${stuckAt}#0000000000999999#0000000000999999`,
          campaignId: 999999,
          prospectId: 999999,
          workspaceId: world.ws.workspaceId,
          dueAt: stuckAt,
        },
      }),
    );
    expect(await moveClock({ advance_hours: 168 })).toEqual({ status: 200, body: { now: '2026-12-14T08:00:00.000Z' } });
    // Stepping a minute at a time past the stuck entry would run out of steps (2,000 minutes) and
    // jump to the end before the third was due.
    const sent = (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.subject?.startsWith('Stuck')).map((item) => [item.subject, item.at]);
    expect(sent).toEqual([
      ['Stuck one', '2026-12-07T08:00:00.000Z'],
      ['Stuck two', '2026-12-08T08:00:00.000Z'],
      ['Stuck three', '2026-12-11T08:00:00.000Z'],
    ]);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });
});
