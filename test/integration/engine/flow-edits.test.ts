import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { EVERY_DAY_ALL_DAY, type EngineWorld, activate, advance, apiOf, campaignStatus, campaignWith, engineWorld, play, playAt, prospectsIn, sentSummary } from './helpers';

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const settings = { timezone: 'UTC', sending_window: EVERY_DAY_ALL_DAY, email_max_messages: 100 };

/**
 * The flow edited while prospects wait in it: those not started yet begin at the flow's root as it
 * is when they are taken; a step carried out is never sent again, wherever an edit moves it.
 */
describe('flow edits and the prospects waiting in the flow', () => {
  // Monday 2027-02-01 08:00 UTC.
  const clock = new ManualClock('2027-02-01T08:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const call = apiOf(() => world);
  const step = async (campaignId: number, subject: string, extra: Record<string, unknown> = {}) =>
    (await call<{ step: { id: number } }>('POST', `/public/campaigns/${campaignId}/steps/`, { step_type: 'EMAIL', subject_line: subject, message_template: 'Hi', delay_in_hours: 0, ...extra })).step.id;
  const currentSteps = async (campaignId: number) => (await position(campaignId)).map(([step]) => step);
  const position = async (campaignId: number) =>
    (await call<{ prospects: { current_step_id: number | null; next_action_at: string | null }[] }>('GET', `/public/campaigns/${campaignId}/prospects/`)).prospects.map((p) => [
      p.current_step_id,
      p.next_action_at,
    ]);
  const subjectsSent = async (prefix: string) =>
    (await sentSummary(world.stack)).filter(([kind, subject]) => kind === 'email' && String(subject).startsWith(prefix)).map(([, subject]) => subject).sort();

  it('starts prospects added to a draft at the root it has at activation, after its first step was replaced', async () => {
    const campaign = await campaignWith(world, 'Replaced first step', [{ step_type: 'EMAIL', subject_line: 'Replaced: old' }], settings);
    await prospectsIn(world, campaign.id, [{}, {}]);
    await call('DELETE', `/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`);
    const replacement = await step(campaign.id, 'Replaced: new');
    // Not scheduled yet: the page shows the node they will start at, the root as it is now.
    expect(await currentSteps(campaign.id)).toEqual([replacement, replacement]);
    await activate(world, campaign.id);
    expect(await subjectsSent('Replaced:')).toEqual(['Replaced: new', 'Replaced: new']);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('starts them at a step put before the one that was first when they were added', async () => {
    const campaign = await campaignWith(world, 'New first step', [{ step_type: 'EMAIL', subject_line: 'Put first: old' }], settings);
    await prospectsIn(world, campaign.id, [{}]);
    const first = await step(campaign.id, 'Put first: new');
    await call('PATCH', `/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`, { parent_step_id: first });
    await activate(world, campaign.id);
    expect(await subjectsSent('Put first:')).toEqual(['Put first: new', 'Put first: old']);
  });

  it('takes a prospect already waiting for the window through a condition put first while the campaign was paused', async () => {
    clock.set('2027-02-01T18:00:00.000Z'); // after a 09:00-17:00 window
    const weekdays = Object.fromEntries(DAYS.map((day) => [day, { enabled: true, start: '09:00', end: '17:00' }]));
    const campaign = await campaignWith(world, 'Condition first', [{ step_type: 'EMAIL', subject_line: 'Condition: no email' }], { ...settings, sending_window: weekdays });
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    await call('POST', `/public/campaigns/${campaign.id}/pause/`);
    const condition = (
      await call<{ condition: { id: number } }>('POST', `/public/campaigns/${campaign.id}/conditions/`, {
        condition_type: 'HAS_EMAIL',
        delay_in_hours: 0,
        no_child_step_id: campaign.stepIds[0],
      })
    ).condition.id;
    await step(campaign.id, 'Condition: has email', { parent_condition_id: condition, branch: 'YES' });
    // Its action, written while it waited for the window, still names the old first step; the
    // engine takes it through the condition, and the page says so (before 2026-11-28 it showed the step).
    expect(await currentSteps(campaign.id)).toEqual([condition]);
    await call('POST', `/public/campaigns/${campaign.id}/resume/`);
    await play(world.stack);
    await playAt(world.stack, clock, '2027-02-02T09:00:00.000Z');
    expect(await subjectsSent('Condition:')).toEqual(['Condition: has email']);
  });

  /**
   * A campaign A, B (1 h), C (3 h) with one prospect: A is sent at `at`, the prospect waits at B,
   * and, the campaign paused, A is moved after B with a 5-hour delay. Left paused.
   */
  const sentAThenMovedAfterB = async (prefix: string, at: string) => {
    clock.set(at);
    const campaign = await campaignWith(
      world,
      `${prefix} over`,
      [
        { step_type: 'EMAIL', subject_line: `${prefix}: A` },
        { step_type: 'EMAIL', subject_line: `${prefix}: B`, delay_in_hours: 1 },
        { step_type: 'EMAIL', subject_line: `${prefix}: C`, delay_in_hours: 3 },
      ],
      settings,
    );
    await prospectsIn(world, campaign.id, [{}]);
    await activate(world, campaign.id);
    expect(await subjectsSent(`${prefix}:`)).toEqual([`${prefix}: A`]);
    const [a, b, c] = campaign.stepIds as [number, number, number];
    await call('POST', `/public/campaigns/${campaign.id}/pause/`);
    await call('PATCH', `/public/campaigns/${campaign.id}/steps/${a}/`, { parent_step_id: b, delay_in_hours: 5 });
    return { campaign, b, c };
  };

  it("counts the delay of the step after a step passed over from the prospect's last action, not from the passed-over step's delay", async () => {
    const { campaign, c } = await sentAThenMovedAfterB('Passed', '2027-02-15T08:00:00.000Z');
    // A, carried out, moved after B (the root moves alone): B, then A (5 h), then C (3 h).
    await call('POST', `/public/campaigns/${campaign.id}/resume/`);
    await playAt(world.stack, clock, '2027-02-15T09:00:00.000Z');
    expect(await subjectsSent('Passed:')).toEqual(['Passed: A', 'Passed: B']);
    // A, after B, is passed over at once: C is due 3 hours after B (12:00), A's 5 hours not waited
    // (before 2026-11-28 it waited at A until 14:00, and C came 3 hours after that).
    expect(await position(campaign.id)).toEqual([[c, '2027-02-15T12:00:00.000Z']]);
    await playAt(world.stack, clock, '2027-02-15T12:00:00.000Z');
    expect(await subjectsSent('Passed:')).toEqual(['Passed: A', 'Passed: B', 'Passed: C']);
  });

  it('counts the delay after a step passed over where the prospect waits from when it reached it', async () => {
    const { campaign, b, c } = await sentAThenMovedAfterB('Waiting', '2027-02-22T08:00:00.000Z');
    // The prospect waits at B (reached 08:00). A was moved after B; B is deleted: A takes its place
    // (the flow is A, C), and the prospect, at B, is at A, which it carried out.
    await call('DELETE', `/public/campaigns/${campaign.id}/steps/${b}/`);
    await call('POST', `/public/campaigns/${campaign.id}/resume/`);
    // The edits' sweeps, at once: A, in B's place, is passed over; C counts from 08:00, when the
    // prospect reached the place (11:00), neither after A's 5 hours (13:00) nor from the pass.
    await play(world.stack);
    expect(await position(campaign.id)).toEqual([[c, '2027-02-22T11:00:00.000Z']]);
    await playAt(world.stack, clock, '2027-02-22T09:00:00.000Z');
    expect(await position(campaign.id)).toEqual([[c, '2027-02-22T11:00:00.000Z']]);
    await playAt(world.stack, clock, '2027-02-22T11:00:00.000Z');
    expect(await subjectsSent('Waiting:')).toEqual(['Waiting: A', 'Waiting: C']);
  });

  it('never sends a step twice when an edit moves it after the steps a prospect has passed', async () => {
    clock.set('2027-02-08T08:00:00.000Z');
    const campaign = await campaignWith(
      world,
      'Moved step',
      [
        { step_type: 'EMAIL', subject_line: 'Moved: A' },
        { step_type: 'EMAIL', subject_line: 'Moved: B', delay_in_hours: 1 },
        { step_type: 'EMAIL', subject_line: 'Moved: C', delay_in_hours: 5 },
      ],
      settings,
    );
    await prospectsIn(world, campaign.id, [{}, {}]);
    await activate(world, campaign.id);
    await advance(world.stack, clock, 2);
    expect(await subjectsSent('Moved:')).toEqual(['Moved: A', 'Moved: A', 'Moved: B', 'Moved: B']);
    await call('POST', `/public/campaigns/${campaign.id}/pause/`);
    const [a, , c] = campaign.stepIds;
    await call('PATCH', `/public/campaigns/${campaign.id}/steps/${a}/`, { parent_step_id: c, delay_in_hours: 1 });
    await call('POST', `/public/campaigns/${campaign.id}/resume/`);
    await advance(world.stack, clock, 8);
    // C, then A again by the flow (an hour later): passed over, and the sequence ends there.
    await advance(world.stack, clock, 2);
    expect(await subjectsSent('Moved:')).toEqual(['Moved: A', 'Moved: A', 'Moved: B', 'Moved: B', 'Moved: C', 'Moved: C']);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });
});
