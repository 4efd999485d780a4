import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, advance, campaignStatus, campaignWith, engineWorld, play, prospectStatuses, prospectsIn, sentSummary, withCondition } from './helpers';

const ALL_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, { enabled: true, start: '00:00', end: '23:59' }]),
);

/**
 * "Edits of texts, delays and A/B variants ... apply to sends not yet made": a delay edited while
 * prospects wait on its node gives them the due time the new delay says, earlier or later.
 */
describe('a delay edited while prospects wait on its node', () => {
  // Monday 2026-11-30 08:00 UTC; the campaigns send around the clock in UTC.
  const clock = new ManualClock('2026-11-30T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const patch = async (path: string, body: Record<string, unknown>) => {
    const response = await world.stack.call('PATCH', path, { apiKey: world.ws.key, body });
    expect(response.status, response.text).toBe(200);
  };
  const nextActionAt = async (campaignId: number) => {
    const page = await world.stack.call<{ prospects: { next_action_at: string | null; current_step_id: number | null }[] }>(
      'GET',
      `/public/campaigns/${campaignId}/prospects/`,
      { apiKey: world.ws.key },
    );
    return page.body.prospects.map(({ current_step_id, next_action_at }) => ({ current_step_id, next_action_at }));
  };
  const emailsSince = async (count: number) => (await sentSummary(world.stack)).slice(count).map(([, subject, at]) => [subject, at]);

  it('sends earlier when a step’s delay is shortened and later when it is lengthened', async () => {
    const before = (await sentSummary(world.stack)).length;
    const campaign = await campaignWith(
      world,
      'Delay edits',
      [
        { step_type: 'EMAIL', subject_line: 'First' },
        { step_type: 'EMAIL', subject_line: 'Second', delay_in_hours: 10 },
        { step_type: 'EMAIL', subject_line: 'Third', delay_in_hours: 2 },
      ],
      { timezone: 'UTC', sending_window: ALL_DAY },
    );
    const [, second, third] = campaign.stepIds as [number, number, number];
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: second, next_action_at: '2026-11-30T18:00:00.000Z' }]);

    // Shortened from 10 to 2 hours: due 2 hours after the first email.
    await patch(`/public/campaigns/${campaign.id}/steps/${second}/`, { delay_in_hours: 2 });
    await play(world.stack);
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: second, next_action_at: '2026-11-30T10:00:00.000Z' }]);
    await advance(world.stack, clock, 2);
    expect(await emailsSince(before)).toEqual([
      ['First', '2026-11-30T08:00:00.000Z'],
      ['Second', '2026-11-30T10:00:00.000Z'],
    ]);

    // Lengthened from 2 to 12 hours while the prospect waits on it: not at 12:00 but at 22:00.
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: third, next_action_at: '2026-11-30T12:00:00.000Z' }]);
    await patch(`/public/campaigns/${campaign.id}/steps/${third}/`, { delay_in_hours: 12 });
    await play(world.stack);
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: third, next_action_at: '2026-11-30T22:00:00.000Z' }]);
    await advance(world.stack, clock, 2);
    expect(await emailsSince(before)).toHaveLength(2);
    await advance(world.stack, clock, 10);
    expect(await emailsSince(before)).toEqual([
      ['First', '2026-11-30T08:00:00.000Z'],
      ['Second', '2026-11-30T10:00:00.000Z'],
      ['Third', '2026-11-30T22:00:00.000Z'],
    ]);
  });

  it('answers a condition earlier when its delay is shortened', async () => {
    clock.set('2026-12-01T08:00:00.000Z');
    const before = (await sentSummary(world.stack)).length;
    const campaign = await campaignWith(world, 'Condition delay edit', [{ step_type: 'EMAIL', subject_line: 'Opening' }], {
      timezone: 'UTC',
      sending_window: ALL_DAY,
    });
    const { conditionId } = await withCondition(
      world,
      campaign.id,
      campaign.stepIds[0] as number,
      { condition_type: 'HAS_EMAIL', delay_in_hours: 10 },
      { YES: { step_type: 'EMAIL', subject_line: 'Has an email' } },
    );
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: conditionId, next_action_at: '2026-12-01T18:00:00.000Z' }]);

    await patch(`/public/campaigns/${campaign.id}/conditions/${conditionId}/`, { delay_in_hours: 1 });
    await advance(world.stack, clock, 1);
    expect(await emailsSince(before)).toEqual([
      ['Opening', '2026-12-01T08:00:00.000Z'],
      ['Has an email', '2026-12-01T09:00:00.000Z'],
    ]);
  });

  it('leaves a prospect waiting for the campaign’s daily cap where it is: its place in the queue is not the delay’s', async () => {
    clock.set('2026-12-07T08:00:00.000Z');
    const before = (await sentSummary(world.stack)).length;
    const campaign = await campaignWith(world, 'Cap wait and a delay edit', [{ step_type: 'EMAIL', subject_line: 'Only one a day' }], {
      timezone: 'UTC',
      sending_window: ALL_DAY,
      email_max_messages: 1,
    });
    const [only] = campaign.stepIds as [number];
    await prospectsIn(world, campaign.id, [{}, {}]);
    await activate(world, campaign.id);
    // One sent now; the other holds the next day's slot.
    expect(await emailsSince(before)).toEqual([['Only one a day', '2026-12-07T08:00:00.000Z']]);
    expect(await nextActionAt(campaign.id)).toContainEqual({ current_step_id: only, next_action_at: '2026-12-08T00:00:00.000Z' });

    // A delay of 1 hour from the scheduling is over at 09:00, but the second prospect still waits
    // for its day (made due at 09:00 it would take a third day's slot).
    await patch(`/public/campaigns/${campaign.id}/steps/${only}/`, { delay_in_hours: 1 });
    await advance(world.stack, clock, 1);
    expect(await nextActionAt(campaign.id)).toContainEqual({ current_step_id: only, next_action_at: '2026-12-08T00:00:00.000Z' });
    await advance(world.stack, clock, 15);
    expect(await emailsSince(before)).toEqual([
      ['Only one a day', '2026-12-07T08:00:00.000Z'],
      ['Only one a day', '2026-12-08T00:00:00.000Z'],
    ]);
  });

  it('gives prospects waiting on a deleted step the due time of the step in its place, shown on the prospects page', async () => {
    clock.set('2026-12-09T08:00:00.000Z');
    const before = (await sentSummary(world.stack)).length;
    const campaign = await campaignWith(
      world,
      'A step deleted',
      [
        { step_type: 'EMAIL', subject_line: 'Deleted first' },
        { step_type: 'EMAIL', subject_line: 'Deleted second', delay_in_hours: 2 },
        { step_type: 'EMAIL', subject_line: 'Deleted third', delay_in_hours: 24 },
      ],
      { timezone: 'UTC', sending_window: ALL_DAY },
    );
    const [, second, third] = campaign.stepIds as [number, number, number];
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: second, next_action_at: '2026-12-09T10:00:00.000Z' }]);

    // Paused (the flow's structure changes only then), the second step deleted: the prospect now
    // waits for the third, 24 hours after it reached the deleted one, and the page says so.
    expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/pause/`, { apiKey: world.ws.key })).status).toBe(200);
    const deleted = await world.stack.call('DELETE', `/public/campaigns/${campaign.id}/steps/${second}/`, { apiKey: world.ws.key });
    expect(deleted.status, deleted.text).toBe(200);
    await play(world.stack);
    expect(await nextActionAt(campaign.id)).toEqual([{ current_step_id: third, next_action_at: '2026-12-10T08:00:00.000Z' }]);
    expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/resume/`, { apiKey: world.ws.key })).status).toBe(200);
    await advance(world.stack, clock, 3);
    expect(await emailsSince(before)).toEqual([['Deleted first', '2026-12-09T08:00:00.000Z']]);
    await advance(world.stack, clock, 21);
    expect(await emailsSince(before)).toEqual([
      ['Deleted first', '2026-12-09T08:00:00.000Z'],
      ['Deleted third', '2026-12-10T08:00:00.000Z'],
    ]);
  });

  it('finishes at once the prospects waiting on a deleted condition or last step, which nothing took the place of', async () => {
    clock.set('2026-12-14T08:00:00.000Z');
    const before = (await sentSummary(world.stack)).length;
    const conditionCampaign = await campaignWith(world, 'A condition deleted', [{ step_type: 'EMAIL', subject_line: 'Before the condition' }], {
      timezone: 'UTC',
      sending_window: ALL_DAY,
    });
    const { conditionId } = await withCondition(world, conditionCampaign.id, conditionCampaign.stepIds[0] as number, { condition_type: 'HAS_EMAIL', delay_in_hours: 10 }, {});
    const stepCampaign = await campaignWith(
      world,
      'The last step deleted',
      [
        { step_type: 'EMAIL', subject_line: 'Before the last step' },
        { step_type: 'EMAIL', subject_line: 'The deleted last step', delay_in_hours: 24 },
      ],
      { timezone: 'UTC', sending_window: ALL_DAY },
    );
    const lastStep = stepCampaign.stepIds[1] as number;
    for (const campaign of [conditionCampaign, stepCampaign]) {
      await prospectsIn(world, campaign.id, [{}]);
      await activate(world, campaign.id);
    }
    expect(await nextActionAt(conditionCampaign.id)).toEqual([{ current_step_id: conditionId, next_action_at: '2026-12-14T18:00:00.000Z' }]);
    expect(await nextActionAt(stepCampaign.id)).toEqual([{ current_step_id: lastStep, next_action_at: '2026-12-15T08:00:00.000Z' }]);

    // Paused, the node deleted, resumed: the prospect finishes now, and so the campaign completes,
    // not at the deleted node's deadline.
    for (const [campaign, path] of [
      [conditionCampaign, `conditions/${conditionId}`],
      [stepCampaign, `steps/${lastStep}`],
    ] as const) {
      expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/pause/`, { apiKey: world.ws.key })).status).toBe(200);
      const deleted = await world.stack.call('DELETE', `/public/campaigns/${campaign.id}/${path}/`, { apiKey: world.ws.key });
      expect(deleted.status, deleted.text).toBe(200);
      await play(world.stack);
      expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/resume/`, { apiKey: world.ws.key })).status).toBe(200);
      await play(world.stack);
      expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
      expect(Object.values(await prospectStatuses(world, campaign.id))).toEqual([{ status: 'FINISHED', last_error: null }]);
    }
    expect(await emailsSince(before)).toEqual([
      ['Before the condition', '2026-12-14T08:00:00.000Z'],
      ['Before the last step', '2026-12-14T08:00:00.000Z'],
    ]);
  });
});
