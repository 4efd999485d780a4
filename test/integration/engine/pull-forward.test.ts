import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, actionsOf, activate, campaignWith, emailsFrom, engineWorld, extraAccount, outcomesOf, playAt, prospectsIn, sandboxSent, tick } from './helpers';

/**
 * A position of the day given back while prospects wait for later days past the cap pulls the
 * latest of those waits forward (docs/engine.md, "Daily caps and accounts"): the day still sends
 * its cap. Before 2026-11-29 the position stayed free and the day sent one fewer.
 */
describe('a position given back pulls the latest wait past the cap forward', () => {
  // Tuesday 1 December 2026, 08:00 in Amsterdam (UTC+1): before the window.
  const clock = new ManualClock('2026-12-01T07:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  // Tuesday to Thursday, 09:00-17:00 local (08:00-16:00 UTC): a cap of 2 has slots at 08:00 and 12:00 UTC.
  const window = {
    tuesday: { enabled: true, start: '09:00', end: '17:00' },
    wednesday: { enabled: true, start: '09:00', end: '17:00' },
    thursday: { enabled: true, start: '09:00', end: '17:00' },
  };
  const SLOTS = ['2026-12-01T08:00', '2026-12-01T12:00', '2026-12-02T08:00', '2026-12-02T12:00', '2026-12-03T08:00', '2026-12-03T12:00', '2026-12-03T16:00'];

  /**
   * An EMAIL campaign at `cap` a day through a mailbox of its own (`before` runs once the mailbox is
   * registered), with prospects of `fields`, activated and played to the window's opening on the
   * Tuesday `tuesday` (08:00 UTC; the clock is set before the window first).
   */
  async function emailCampaignAt(tuesday: string, name: string, mailboxId: string, cap: number, fields: Record<string, unknown>[], before?: (mailbox: number) => Promise<void>) {
    clock.set(`${tuesday}T07:00:00.000Z`);
    const mailbox = await extraAccount(world, 'MAIL', mailboxId);
    await before?.(mailbox);
    const campaign = await campaignWith(world, name, [{ step_type: 'EMAIL' }], { email_max_messages: cap, account_ids: [mailbox], sending_window: window });
    const ids = await prospectsIn(world, campaign.id, fields);
    await activate(world, campaign.id);
    await playAt(world.stack, clock, `${tuesday}T08:00:00.000Z`);
    return { campaign, ids };
  }
  const FIVE = [{}, {}, {}, {}, {}];
  const SEVEN = [...FIVE, {}, {}];
  /** The prospect of the action due at `at`. */
  const dueOn = (actions: Awaited<ReturnType<typeof actionsOf>>, at: string) => Number(actions.find((action) => action.dueAt === at)?.prospectId);
  /** When the sandbox took the emails sent through `mailbox`, in order. */
  const emailTimes = async (mailbox: string) =>
    (await sandboxSent(world.stack))
      .filter((item) => item.kind === 'email' && item.accountId === mailbox)
      .map((item) => item.at)
      .sort();

  /** The campaign's waits past the cap, as `<prospect> <due time>`, sorted. */
  const waitsPastCap = async (campaignId: number) =>
    (await actionsOf(world.stack, campaignId))
      .filter((action) => action.pastCap)
      .map((action) => `${action.prospectId} ${action.dueAt}`)
      .sort();

  /** After the window's first moment: who sent, who holds Tuesday's second slot, and who waits for Thursday. */
  async function placed(campaignId: number) {
    const actions = await actionsOf(world.stack, campaignId);
    const holder = actions.find((action) => (action.reservation as { k?: number } | null)?.k === 2);
    const thursday = actions.find((action) => action.dueAt === '2026-12-03T08:00:00.000Z');
    expect(actions.map((action) => action.dueAt).sort()).toEqual([
      '2026-12-01T12:00:00.000Z',
      '2026-12-02T08:00:00.000Z',
      '2026-12-02T12:00:00.000Z',
      '2026-12-03T08:00:00.000Z',
    ]);
    return { holder: Number(holder?.prospectId), thursday: Number(thursday?.prospectId), thursdayItem: thursday };
  }

  it('an address suppressed before its slot: Tuesday still sends 2, taken from Thursday’s wait', async () => {
    const { stack } = world;
    const emails = [1, 2, 3, 4, 5].map((n) => `pull${n}@example.com`);
    const { campaign, ids } = await emailCampaignAt('2026-12-01', 'Pull forward', 'sbx-mailbox-pull', 2, emails.map((email) => ({ email })));
    const { holder, thursday, thursdayItem } = await placed(campaign.id);
    // Waits past the cap carry the day whose demand counted them, and an lsi3 key to be found by.
    expect(thursdayItem).toMatchObject({
      pastCap: { day: '2026-12-01', kind: 'EMAIL' },
      lsi3sk: `PASTCAP#EMAIL#2026-12-03T08:00:00.000Z#${String(thursday).padStart(16, '0')}`,
    });
    const emailOf = (id: number) => emails[ids.indexOf(id)] as string;

    const suppressed = await stack.call('POST', '/public/suppressions/', { apiKey: world.ws.key, body: { emails: [emailOf(holder)] } });
    expect(suppressed.status, suppressed.text).toBe(200);
    await playAt(stack, clock, '2026-12-01T12:00:00.000Z');
    const tuesday = (await emailsFrom(world, 'sbx-mailbox-pull')).filter((line) => line.includes('2026-12-01T'));
    // The suppressed address gives back position 2; Thursday's prospect takes it, its slot passed: at once.
    expect(tuesday).toHaveLength(2);
    expect(tuesday).toContain(`${emailOf(thursday)} 2026-12-01T12:00:00.000Z`);

    for (const at of SLOTS.slice(2)) await playAt(stack, clock, `${at}:00.000Z`);
    const days = (await emailsFrom(world, 'sbx-mailbox-pull')).map((line) => line.split(' ')[1]?.slice(0, 10)).sort();
    expect(days).toEqual(['2026-12-01', '2026-12-01', '2026-12-02', '2026-12-02']);
    const outcomes = (await outcomesOf(stack, campaign.id)).map((o) => `${o.prospectId} ${o.outcome} ${o.reason ?? ''}`.trim());
    expect(outcomes.sort()).toEqual(ids.map((id) => (id === holder ? `${id} SKIPPED suppressed` : `${id} SENT`)).sort());
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
  });

  it('a network message skipped at its slot (not connected): Tuesday still sends 2', async () => {
    const { stack } = world;
    clock.set('2026-12-08T07:00:00.000Z'); // the next Tuesday, before the window
    const network = await extraAccount(world, 'LINKEDIN', 'sbx-network-pull');
    const campaign = await campaignWith(world, 'Pull forward, network', [{ step_type: 'NETWORK_MESSAGE', message_template: 'Hi {{first_name}}' }], {
      network_max_messages: 2,
      account_ids: [network],
      sending_window: window,
    });
    const slugList = [1, 2, 3, 4, 5].map((n) => `pull-friend-${n}`);
    const ids = await prospectsIn(
      world,
      campaign.id,
      slugList.map((slug) => ({ network_profile_url: `https://www.linkedin.com/in/${slug}` })),
    );
    const slugs = new Map(ids.map((id, i) => [id, slugList[i] as string]));
    // All first-degree connections of the account, for now.
    for (const slug of slugList) await stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
    await activate(world, campaign.id);
    await playAt(stack, clock, '2026-12-08T08:00:00.000Z');
    const actions = await actionsOf(stack, campaign.id);
    const holder = Number(actions.find((action) => (action.reservation as { k?: number } | null)?.k === 2)?.prospectId);
    const thursday = Number(actions.find((action) => action.dueAt === '2026-12-10T08:00:00.000Z')?.prospectId);
    expect([holder, thursday].every((id) => ids.includes(id))).toBe(true);
    // The prospect holding the second slot is no longer a connection when its slot comes: skipped.
    await stack.provider.control.setProfile(slugs.get(holder) as string, { network_distance: 'SECOND_DEGREE' });
    await playAt(stack, clock, '2026-12-08T12:00:00.000Z');
    const messages = async () => (await sandboxSent(stack)).filter((item) => item.kind === 'chat' && item.accountId === 'sbx-network-pull');
    expect((await messages()).map((item) => item.at.slice(0, 10))).toEqual(['2026-12-08', '2026-12-08']);
    for (const at of ['2026-12-09T08:00', '2026-12-09T12:00', '2026-12-10T08:00', '2026-12-10T12:00', '2026-12-10T16:00']) await playAt(stack, clock, `${at}:00.000Z`);
    expect((await messages()).map((item) => item.at.slice(0, 10)).sort()).toEqual(['2026-12-08', '2026-12-08', '2026-12-09', '2026-12-09']);
    const skipped = (await outcomesOf(stack, campaign.id)).filter((o) => o.outcome === 'SKIPPED').map((o) => Number(o.prospectId));
    expect(skipped).toEqual([holder]);
  });

  it('on a later day of the backlog too: Wednesday’s second send suppressed at its slot pulls the backlog’s last wait to Wednesday', async () => {
    const { stack } = world;
    const emails = [1, 2, 3, 4, 5, 6, 7].map((n) => `later${n}@example.com`);
    const { campaign, ids } = await emailCampaignAt('2027-01-12', 'Pull forward, later day', 'sbx-mailbox-pull-later', 2, emails.map((email) => ({ email })));
    const actions = await actionsOf(stack, campaign.id);
    // Past the cap, counted on Tuesday: Wednesday 08:00 and 12:00, Thursday 08:00 and 12:00, next Tuesday 08:00.
    const [wednesdayNoon, nextTuesday] = [dueOn(actions, '2027-01-13T12:00:00.000Z'), dueOn(actions, '2027-01-19T08:00:00.000Z')];
    const emailOf = (id: number) => emails[ids.indexOf(id)] as string;
    for (const at of ['2027-01-12T12:00', '2027-01-13T08:00']) await playAt(stack, clock, `${at}:00.000Z`);
    const suppressed = await stack.call('POST', '/public/suppressions/', { apiKey: world.ws.key, body: { emails: [emailOf(wednesdayNoon)] } });
    expect(suppressed.status, suppressed.text).toBe(200);
    for (const at of ['2027-01-13T12:00', '2027-01-14T08:00', '2027-01-14T12:00', '2027-01-14T16:00', '2027-01-19T08:00', '2027-01-19T16:00']) {
      await playAt(stack, clock, `${at}:00.000Z`);
    }
    const sent = await emailsFrom(world, 'sbx-mailbox-pull-later');
    expect(sent.map((line) => line.split(' ')[1]?.slice(0, 10)).sort()).toEqual(['2027-01-12', '2027-01-12', '2027-01-13', '2027-01-13', '2027-01-14', '2027-01-14']);
    expect(sent).toContain(`${emailOf(nextTuesday)} 2027-01-13T12:00:00.000Z`);
  });

  it('at most the cap of pulls a day: network steps skipped one after another stop pulling once the day’s budget is spent', async () => {
    const { stack } = world;
    clock.set('2027-01-26T07:00:00.000Z'); // a Tuesday, before the window
    const network = await extraAccount(world, 'LINKEDIN', 'sbx-network-pull-budget');
    const campaign = await campaignWith(world, 'Pull budget', [{ step_type: 'NETWORK_MESSAGE', message_template: 'Hi {{first_name}}' }], {
      network_max_messages: 2,
      account_ids: [network],
      sending_window: window,
    });
    // Nobody is a connection of the account: every message step is skipped when it goes.
    const ids = await prospectsIn(world, campaign.id, [{}, {}, {}, {}, {}]);
    await activate(world, campaign.id);
    await playAt(stack, clock, '2027-01-26T08:00:00.000Z');
    await playAt(stack, clock, '2027-01-26T12:00:00.000Z');
    // Tuesday: the two slot holders and the two waits their skips pulled (the budget of 2); the
    // fifth still waits for its day instead of being pulled after them.
    const skippedOn = async (day: string) => (await outcomesOf(stack, campaign.id)).filter((o) => o.outcome === 'SKIPPED' && String(o.at).startsWith(day)).length;
    expect(await skippedOn('2027-01-26')).toBe(4);
    expect(await actionsOf(stack, campaign.id)).toHaveLength(1);
    for (const at of ['2027-01-27T08:00', '2027-01-27T12:00', '2027-01-28T08:00', '2027-01-28T12:00']) await playAt(stack, clock, `${at}:00.000Z`);
    expect((await outcomesOf(stack, campaign.id)).map((o) => o.outcome)).toEqual(Array(ids.length).fill('SKIPPED'));
  });

  it('a provider refusal that does not name the prospect (a 400) pulls nothing: it could be ours and fail every pulled one', async () => {
    const { stack } = world;
    const { campaign } = await emailCampaignAt('2027-02-02', 'No pull on a 400', 'sbx-mailbox-pull-refused', 2, FIVE);
    const before = await waitsPastCap(campaign.id);
    expect(before).toHaveLength(3);
    await stack.provider.control.addFault({ kind: 'status', status: 400, method: 'POST', path: '/api/v1/emails', times: 1 });
    await playAt(stack, clock, '2027-02-02T12:00:00.000Z');
    expect((await outcomesOf(stack, campaign.id)).map((o) => o.outcome).sort()).toEqual(['FAILED', 'SENT']);
    expect(await waitsPastCap(campaign.id)).toEqual(before);
  });

  it('a prospect holding a slot removed from the campaign, another given a pipeline stage: their positions pull the latest waits forward', async () => {
    const { stack } = world;
    // A cap of 3: slots at 08:00, 10:40 and 13:20 UTC.
    const { campaign, ids } = await emailCampaignAt('2026-12-22', 'Pull forward, removed', 'sbx-mailbox-pull-removed', 3, SEVEN);
    const actions = await actionsOf(stack, campaign.id);
    const holding = (k: number) => Number(actions.find((action) => (action.reservation as { k?: number } | null)?.k === k)?.prospectId);
    // Past the cap: Wednesday 08:00, 10:40, 13:20 and Thursday 08:00.
    const [lastWait, nextToLast] = [dueOn(actions, '2026-12-24T08:00:00.000Z'), dueOn(actions, '2026-12-23T13:20:00.000Z')];
    const removed = await stack.call('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [holding(2)] } });
    expect(removed.status, removed.text).toBe(200);
    const stopped = await stack.call('PATCH', `/public/prospects/${holding(3)}/`, { apiKey: world.ws.key, body: { status: 'INTERESTED' } });
    expect(stopped.status, stopped.text).toBe(200);
    // Each made the latest wait due at once; the sender places them in the positions given back.
    const after = await actionsOf(stack, campaign.id);
    expect(after.filter((action) => action.dueAt === '2026-12-22T08:00:00.000Z').map((action) => Number(action.prospectId)).sort()).toEqual([lastWait, nextToLast].sort());
    await playAt(stack, clock, '2026-12-22T08:01:00.000Z');
    for (const at of ['2026-12-22T10:40', '2026-12-22T13:20', '2026-12-23T08:00', '2026-12-23T10:40', '2026-12-23T13:20', '2026-12-24T08:00', '2026-12-24T16:00']) {
      await playAt(stack, clock, `${at}:00.000Z`);
    }
    expect(await emailTimes('sbx-mailbox-pull-removed')).toEqual([
      '2026-12-22T08:00:00.000Z',
      '2026-12-22T10:40:00.000Z',
      '2026-12-22T13:20:00.000Z',
      '2026-12-23T08:00:00.000Z',
      '2026-12-23T10:40:00.000Z',
    ]);
    expect(ids).toHaveLength(7);
  });

  it('three slot holders removed in one request pull the three latest waits: Tuesday still sends its 4', async () => {
    const { stack } = world;
    // A cap of 4: slots at 08:00, 10:00, 12:00 and 14:00 UTC.
    const { campaign } = await emailCampaignAt('2027-02-09', 'Pull forward, bulk', 'sbx-mailbox-pull-bulk', 4, Array.from({ length: 10 }, () => ({})));
    const actions = await actionsOf(stack, campaign.id);
    const holders = actions.filter((action) => action.reservation !== null).map((action) => Number(action.prospectId));
    expect(holders).toHaveLength(3);
    const removed = await stack.call('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: holders } });
    expect(removed.status, removed.text).toBe(200);
    for (const at of ['2027-02-09T08:01', '2027-02-09T10:00', '2027-02-09T12:00', '2027-02-09T14:00', '2027-02-10T08:00', '2027-02-10T10:00', '2027-02-10T12:00', '2027-02-10T14:00']) {
      await playAt(stack, clock, `${at}:00.000Z`);
    }
    for (const at of ['2027-02-11T08:00', '2027-02-11T16:00']) await playAt(stack, clock, `${at}:00.000Z`);
    expect(await emailTimes('sbx-mailbox-pull-bulk')).toEqual([
      '2027-02-09T08:00:00.000Z',
      '2027-02-09T10:00:00.000Z',
      '2027-02-09T12:00:00.000Z',
      '2027-02-09T14:00:00.000Z',
      '2027-02-10T08:00:00.000Z',
      '2027-02-10T10:00:00.000Z',
      '2027-02-10T12:00:00.000Z',
    ]);
  });

  it('a prospect waiting in line for later today removed: its place goes to the latest wait, and the day still sends its cap', async () => {
    const { stack } = world;
    const { campaign } = await emailCampaignAt('2027-02-16', 'Place handed on, today', 'sbx-mailbox-place-today', 2, FIVE);
    await playAt(stack, clock, '2027-02-16T12:00:00.000Z');
    // Wednesday: two waits placed by Tuesday's demand (08:00, 12:00), one for Thursday 08:00.
    await playAt(stack, clock, '2027-02-17T08:00:00.000Z');
    const waiting = await actionsOf(stack, campaign.id);
    const [noon, thursday] = [dueOn(waiting, '2027-02-17T12:00:00.000Z'), dueOn(waiting, '2027-02-18T08:00:00.000Z')];
    const removed = await stack.call('POST', `/public/campaigns/${campaign.id}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [noon] } });
    expect(removed.status, removed.text).toBe(200);
    // Thursday's wait takes the noon place, still past the cap (it takes its position when it comes due).
    expect(await waitsPastCap(campaign.id)).toEqual([`${thursday} 2027-02-17T12:00:00.000Z`]);
    for (const at of ['2027-02-17T12:00', '2027-02-18T08:00', '2027-02-18T16:00']) await playAt(stack, clock, `${at}:00.000Z`);
    expect(await emailTimes('sbx-mailbox-place-today')).toEqual(['2027-02-16T08:00:00.000Z', '2027-02-16T12:00:00.000Z', '2027-02-17T08:00:00.000Z', '2027-02-17T12:00:00.000Z']);
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
  });

  it('a prospect waiting for a later day stopped (a pipeline stage): the latest wait takes its place, the backlog’s last day sends one fewer', async () => {
    const { stack } = world;
    // A cap of 2 and seven prospects: waits on Wednesday 08:00 and 12:00, Thursday 08:00 and 12:00, next Tuesday 08:00.
    const { campaign } = await emailCampaignAt('2027-02-23', 'Place handed on, later day', 'sbx-mailbox-place-later', 2, SEVEN);
    const actions = await actionsOf(stack, campaign.id);
    const [wednesdayMorning, nextTuesday] = [dueOn(actions, '2027-02-24T08:00:00.000Z'), dueOn(actions, '2027-03-02T08:00:00.000Z')];
    const stopped = await stack.call('PATCH', `/public/prospects/${wednesdayMorning}/`, { apiKey: world.ws.key, body: { status: 'NOT_INTERESTED' } });
    expect(stopped.status, stopped.text).toBe(200);
    expect((await actionsOf(stack, campaign.id)).find((action) => action.prospectId === nextTuesday)).toMatchObject({ dueAt: '2027-02-24T08:00:00.000Z', pastCap: { kind: 'EMAIL' } });
    for (const at of ['2027-02-23T12:00', '2027-02-24T08:00', '2027-02-24T12:00', '2027-02-25T08:00', '2027-02-25T12:00', '2027-03-02T08:00', '2027-03-02T16:00']) {
      await playAt(stack, clock, `${at}:00.000Z`);
    }
    expect(await emailTimes('sbx-mailbox-place-later')).toEqual([
      '2027-02-23T08:00:00.000Z',
      '2027-02-23T12:00:00.000Z',
      '2027-02-24T08:00:00.000Z',
      '2027-02-24T12:00:00.000Z',
      '2027-02-25T08:00:00.000Z',
      '2027-02-25T12:00:00.000Z',
    ]);
  });

  it('pulls nothing for a slot given back because the account is at its daily limit: the waits stay where they were placed', async () => {
    const { stack } = world;
    const { campaign } = await emailCampaignAt('2026-12-29', 'No pull at a limit', 'sbx-mailbox-pull-limit', 2, FIVE, async (mailbox) => {
      const limited = await stack.call('PATCH', `/public/accounts/${mailbox}/`, { apiKey: world.ws.key, body: { daily_limits: { emails: 1 } } });
      expect(limited.status, limited.text).toBe(200);
    });
    const waits = async () =>
      (await actionsOf(stack, campaign.id))
        .filter((action) => action.reservation === null)
        .map((action) => `${action.prospectId} ${action.dueAt}`)
        .sort();
    const before = await waits();
    expect(before.map((line) => line.split(' ')[1]).sort()).toEqual(['2026-12-30T08:00:00.000Z', '2026-12-30T12:00:00.000Z', '2026-12-31T08:00:00.000Z']);
    // At 12:00 the holder of the second slot finds the mailbox at its limit (1 a day): it waits for
    // tomorrow and gives its position back, and no wait is pulled into the same limit.
    await playAt(stack, clock, '2026-12-29T12:00:00.000Z');
    const after = await waits();
    expect(after).toHaveLength(4);
    expect(after.filter((line) => before.includes(line))).toEqual(before);
    expect((await sandboxSent(stack)).filter((item) => item.accountId === 'sbx-mailbox-pull-limit')).toHaveLength(1);
  });

  it('pulls nothing for a slot given back by a provider outage (a 503): the send is retried, the waits stay where they were placed', async () => {
    const { stack } = world;
    const { campaign } = await emailCampaignAt('2027-01-05', 'No pull in an outage', 'sbx-mailbox-pull-outage', 2, FIVE);
    const before = await waitsPastCap(campaign.id);
    expect(before).toHaveLength(3);
    // The provider answers 503 to the second slot's send: retried in a minute, and nothing pulled
    // (a pulled wait would meet the same outage and pull the next).
    await stack.provider.control.addFault({ kind: 'status', status: 503, method: 'POST', path: '/api/v1/emails', times: 1 });
    clock.set('2027-01-05T12:00:00.000Z');
    await tick(stack);
    expect(await waitsPastCap(campaign.id)).toEqual(before);
    await playAt(stack, clock, '2027-01-05T12:05:00.000Z');
    expect(await waitsPastCap(campaign.id)).toEqual(before);
    expect((await sandboxSent(stack)).filter((item) => item.accountId === 'sbx-mailbox-pull-outage').map((item) => item.at)).toHaveLength(2);
  });

  it('pulls nothing while the campaign is paused: a parked slot leaves the waits where they were', async () => {
    const { stack } = world;
    const { campaign } = await emailCampaignAt('2026-12-15', 'No pull when paused', 'sbx-mailbox-pull-paused', 2, FIVE);
    const before = (await actionsOf(stack, campaign.id)).map((action) => `${action.prospectId} ${action.dueAt}`).sort();
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/pause/`, { apiKey: world.ws.key })).status).toBe(200);
    // The slot holder is parked at its slot and gives its position back: the waits stay as placed.
    await playAt(stack, clock, '2026-12-15T12:00:00.000Z');
    const after = await actionsOf(stack, campaign.id);
    const parked = after.filter((action) => action.parked === 'CAMPAIGN_NOT_ACTIVE');
    expect(parked).toHaveLength(1);
    expect(
      after
        .filter((action) => action.parked === null)
        .map((action) => `${action.prospectId} ${action.dueAt}`)
        .sort(),
    ).toEqual(before.filter((line) => !line.startsWith(`${parked[0]?.prospectId} `)));
  });
});
