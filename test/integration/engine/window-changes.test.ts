import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SENDING_DAY } from '../../../shared/domain/engine/pacing';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, advance, campaignWith, engineWorld, prospectsIn, sentSummary } from './helpers';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const window = (enabled: boolean) => Object.fromEntries(DAYS.map((day) => [day, { enabled, start: '00:00', end: '23:59' }]));

/** A window changed while prospects wait: a step that meets a window without any open day waits and looks again. */
describe('a sending window without an open day', () => {
  // Monday 2026-11-30 08:00 UTC.
  const clock = new ManualClock('2026-11-30T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  it('holds the step with a reason while no day is open, and sends it within the hour once a day opens again', async () => {
    const campaign = await campaignWith(
      world,
      'Holiday by window',
      [
        { step_type: 'EMAIL', subject_line: 'Before the holiday' },
        { step_type: 'EMAIL', subject_line: 'After the holiday', delay_in_hours: 1 },
      ],
      { timezone: 'UTC', sending_window: window(true) },
    );
    const [second] = campaign.stepIds.slice(1) as [number];
    const [id] = await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    const setWindow = async (enabled: boolean) => {
      const patched = await world.stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { sending_window: window(enabled) } });
      expect(patched.status, patched.text).toBe(200);
    };
    const page = async () =>
      (
        await world.stack.call<{ prospects: { id: number; current_step_id: number; next_action_at: string | null; last_error: string | null }[] }>(
          'GET',
          `/public/campaigns/${campaign.id}/prospects/`,
          { apiKey: world.ws.key },
        )
      ).body.prospects.map(({ id, current_step_id, next_action_at, last_error }) => ({ id, current_step_id, next_action_at, last_error }));

    await setWindow(false);
    await advance(world.stack, clock, 2);
    expect(await page()).toEqual([{ id, current_step_id: second, next_action_at: '2026-11-30T11:00:00.000Z', last_error: NO_SENDING_DAY }]);
    await advance(world.stack, clock, 24);
    expect((await sentSummary(world.stack)).map(([, subject]) => subject)).toEqual(['Before the holiday']);

    // Open again (a PATCH only; no activate or resume): the next look sends it.
    await setWindow(true);
    await advance(world.stack, clock, 1);
    expect((await sentSummary(world.stack)).map(([, subject, at]) => [subject, at])).toEqual([
      ['Before the holiday', '2026-11-30T08:00:00.000Z'],
      ['After the holiday', '2026-12-01T11:00:00.000Z'],
    ]);
  });
});
