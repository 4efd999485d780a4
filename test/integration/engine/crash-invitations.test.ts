import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, advance, campaignStatus, campaignWith, claimedAndCrashed, engineWorld, outcomesOf, playAt, prospectStatuses, prospectsIn, sandboxSent, tick } from './helpers';

/**
 * The crash rule for an invitation: a sender that crashed between its claim and the provider's
 * answer is settled from the account's view of the profile (docs/engine.md, the crash rule).
 */
describe('an invitation claimed by a sender that crashed', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const invitationsTo = async (slug: string) => (await sandboxSent(world.stack)).filter((item) => item.kind === 'invitation' && item.text.endsWith(slug));
  /** One prospect, a stranger to the network account, in a campaign of one invitation step whose note names it. */
  const inviteCampaign = async (name: string, slug: string) => {
    const campaign = await campaignWith(world, name, [{ step_type: 'NETWORK_INVITE', message_template: `Hi {{first_name}}, ${slug}` }]);
    const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Ines', network_profile_url: `https://www.linkedin.com/in/${slug}` }]);
    expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    return { campaign, prospectId: prospectId as number };
  };

  /** One prospect (profile `<slug>`), a stranger, in an activated campaign of an invitation and an email (`subject`) an hour later; not yet sent. */
  const inviteThenEmail = async (name: string, slug: string, subject: string) => {
    const campaign = await campaignWith(world, name, [
      { step_type: 'NETWORK_INVITE', message_template: `Hi {{first_name}}, ${slug}` },
      { step_type: 'EMAIL', subject_line: subject, delay_in_hours: 1 },
    ]);
    const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Fay', network_profile_url: `https://www.linkedin.com/in/${slug}` }]);
    expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await world.stack.drain('campaign-scheduling');
    return { campaign, prospectId: prospectId as number };
  };
  /** An invitation the provider carried out, called by hand (as a sender that crashed after the call would have). */
  const invitedAtProvider = async (slug: string, message: string) => {
    const { provider } = world.stack;
    const direct = await fetch(`${provider.url}/api/v1/users/invite`, {
      method: 'POST',
      headers: { 'X-API-KEY': provider.accessToken, 'content-type': 'application/json' },
      body: JSON.stringify({ account_id: 'sbx-network-dev', provider_id: slug, message }),
    });
    expect(direct.status, await direct.text()).toBe(200);
  };
  /** The campaign's prospects as its page shows them: current step and next action time. */
  const positions = async (campaignId: number) =>
    (
      await world.stack.call<{ prospects: { current_step_id: number | null; next_action_at: string | null }[] }>('GET', `/public/campaigns/${campaignId}/prospects/`, {
        apiKey: world.ws.key,
      })
    ).body.prospects.map((p) => [p.current_step_id, p.next_action_at]);

  it('records an invitation the profile shows pending as sent, dated by its claim, and sends one it does not show', async () => {
    const { stack } = world;
    const shown = await inviteCampaign('Crash invite shown', 'ines-invited');
    const missing = await inviteCampaign('Crash invite missing', 'ivo-missing');
    await stack.drain('campaign-scheduling');
    // The provider carried one invitation out...
    await invitedAtProvider('ines-invited', 'Hi Ines, ines-invited');
    clock.advance(60_000);
    // ...for a sender that claimed both and crashed: one after the provider carried it out, one before.
    const claimedAt = clock.now().toISOString();
    for (const { campaign, prospectId } of [shown, missing]) await claimedAndCrashed(stack, clock, campaign.id, prospectId, 'INVITE', world.network);
    await tick(stack);
    expect(await invitationsTo('ivo-missing')).toEqual([]);
    // Once the claim has expired, the crash rule looks at each profile.
    await advance(stack, clock, 0.5);
    expect(await invitationsTo('ines-invited')).toHaveLength(1);
    expect((await outcomesOf(stack, shown.campaign.id)).map((o) => [o.outcome, o.reason, o.at])).toEqual([['SENT', 'settled after a crash: the provider shows the invitation', claimedAt]]);
    expect(await invitationsTo('ivo-missing')).toHaveLength(1);
    expect((await outcomesOf(stack, missing.campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', null]]);
  });

  it('counts the next step’s delay from the claim of an invitation the crash rule finds sent, not from the look', async () => {
    const { stack } = world;
    const { campaign, prospectId } = await inviteThenEmail('Crash then follow-up', 'fay-follow', 'Follow-up after a crash');
    // The provider carried the invitation out, for a sender that crashed after its claim.
    await invitedAtProvider('fay-follow', 'Hi Fay, fay-follow');
    const claimedAt = clock.now().getTime();
    await claimedAndCrashed(stack, clock, campaign.id, prospectId, 'INVITE', world.network);
    // The crash rule looks half an hour later and finds it pending.
    await advance(stack, clock, 0.5);
    expect((await outcomesOf(stack, campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', 'settled after a crash: the provider shows the invitation']]);
    expect(await positions(campaign.id)).toEqual([[campaign.stepIds[1], new Date(claimedAt + 3_600_000).toISOString()]]);
  });

  it("goes on to the step's child when the claimed step was deleted meanwhile: the next step is sent and the campaign completes", async () => {
    const { stack } = world;
    const { campaign, prospectId } = await inviteThenEmail('Crash step deleted', 'una-deleted', 'After the deleted step');
    const scheduledAt = clock.now().getTime();
    await claimedAndCrashed(stack, clock, campaign.id, prospectId, 'INVITE', world.network);
    // The flow changes only while paused.
    const call = async (method: string, path: string) => {
      const response = await stack.call(method, path, { apiKey: world.ws.key });
      expect(response.status, response.text).toBe(200);
    };
    await call('POST', `/public/campaigns/${campaign.id}/pause/`);
    await call('DELETE', `/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`);
    await call('POST', `/public/campaigns/${campaign.id}/resume/`);
    // The claim expires; the crash rule cannot settle a step that is gone, and the prospect goes on.
    await advance(stack, clock, 0.5);
    // Due an hour after the prospect reached the deleted step's place (its delay counts from then).
    const dueAt = new Date(scheduledAt + 3_600_000).toISOString();
    expect(await positions(campaign.id)).toEqual([[campaign.stepIds[1], dueAt]]);
    await playAt(stack, clock, dueAt);
    const emails = (await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.subject === 'After the deleted step');
    expect(emails.map((item) => item.at)).toEqual([dueAt]);
    expect(await invitationsTo('una-deleted')).toEqual([]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospectId]: { status: 'FINISHED', last_error: null } });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });
});
