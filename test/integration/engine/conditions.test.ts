import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_ACCOUNT_CAN_SEND } from '../../../shared/domain/engine/pacing';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, activate, advance, campaignWith, engineWorld, play, prospectStatuses, prospectsIn, sandboxSent, withCondition } from './helpers';

/** Each condition both ways, evaluated by the sender as the clock moves (docs/engine.md, "Conditions"). */
describe('campaign conditions', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  /** Emails the sandbox sent with this subject: their recipients. */
  const emailedWith = async (subject: string) =>
    (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.subject === subject).map((item) => item.to);
  /** Invitations and messages the sandbox sent with this text: when. */
  const networkSends = async (text: string) =>
    (await sandboxSent(world.stack)).filter((item) => item.kind !== 'email' && item.text === text).map((item) => [item.kind, item.at]);

  /**
   * A campaign through the dev mailbox and network account (or `accountIds`): an invitation (its note
   * `<tag> invite`), then ACCEPTED_INVITE after 24 hours, YES and NO each an email (`<tag> yes`,
   * `<tag> no`); one prospect (profile `<slug>`, email `<slug>@example.com`), invited: the campaign
   * activated and an hour played.
   */
  const invitedOne = async (name: string, tag: string, slug: string, accountIds = [world.mailbox, world.network]) => {
    const campaign = await campaignWith(world, name, [{ step_type: 'NETWORK_INVITE', message_template: `${tag} invite` }], { account_ids: accountIds });
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ACCEPTED_INVITE', delay_in_hours: 24 }, {
      YES: { step_type: 'EMAIL', subject_line: `${tag} yes` },
      NO: { step_type: 'EMAIL', subject_line: `${tag} no` },
    });
    const [id] = await prospectsIn(world, campaign.id, [{ network_profile_url: `https://www.linkedin.com/in/${slug}`, email: `${slug}@example.com` }]);
    await activate(world, campaign.id);
    await advance(world.stack, clock, 1);
    return { campaign, id: id as number };
  };
  /**
   * The prospect (profile `<slug>`) out of the campaign, the campaign moved to the mailbox and
   * network account `networkAccount`, and the prospect in again, activated: a new stay, its
   * invitation sent within the 2 hours played.
   */
  const newStay = async (campaignId: number, prospectId: number, networkAccount: number, slug: string) => {
    const { stack } = world;
    const removed = await stack.call('POST', `/public/campaigns/${campaignId}/remove-prospects/`, { apiKey: world.ws.key, body: { prospect_ids: [prospectId] } });
    expect(removed.status, removed.text).toBe(200);
    const swapped = await stack.call('PATCH', `/public/campaigns/${campaignId}/`, { apiKey: world.ws.key, body: { account_ids: [world.mailbox, networkAccount] } });
    expect(swapped.status, swapped.text).toBe(200);
    clock.advance(60_000);
    const lead = { first_name: 'Back', last_name: 'Again', network_profile_url: `https://www.linkedin.com/in/${slug}` };
    const again = await stack.call('POST', `/public/campaigns/${campaignId}/import/`, { apiKey: world.ws.key, body: { activate: true, leads: [lead] } });
    expect([again.status, again.body.count], again.text).toEqual([200, 1]);
    await advance(stack, clock, 2);
  };
  /** The second network account ('Looker'), registered by the first test that needs it. */
  const lookerAccount = async () =>
    (await world.stack.call<{ accounts: { id: number; name: string }[] }>('GET', '/public/accounts/', { apiKey: world.ws.key })).body.accounts.find((account) => account.name === 'Looker')?.id as number;

  it('HAS_EMAIL: a valid email takes YES, none takes NO', async () => {
    const campaign = await campaignWith(world, 'Has email', [{ step_type: 'EMAIL', subject_line: 'HE intro' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'HAS_EMAIL' }, {
      YES: { step_type: 'EMAIL', subject_line: 'HE yes' },
      NO: { step_type: 'NETWORK_INVITE', message_template: 'HE no' },
    });
    const [withEmail, without] = await prospectsIn(world, campaign.id, [{ email: 'has.email@example.com' }, { email: '' }]);
    await activate(world, campaign.id);
    await advance(world.stack, clock, 1);
    expect(await emailedWith('HE intro')).toEqual(['has.email@example.com']);
    expect(await emailedWith('HE yes')).toEqual(['has.email@example.com']);
    expect((await networkSends('HE no')).map(([kind]) => kind)).toEqual(['invitation']);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [withEmail as number]: { status: 'FINISHED', last_error: null },
      [without as number]: { status: 'FINISHED', last_error: null },
    });
  });

  it('HAS_EMAIL_PREMIUM: a domain whose MX is Google Workspace or Microsoft 365 takes YES, another NO', async () => {
    const { control } = world.stack.provider;
    await control.setMx('premium.example', [
      { exchange: 'alt1.aspmx.l.google.com', priority: 5 },
      { exchange: 'aspmx.l.google.com', priority: 1 },
    ]);
    await control.setMx('office.example', [{ exchange: 'office-example.mail.protection.outlook.com', priority: 0 }]);
    await control.setMx('plain.example', [{ exchange: 'mx1.plain.example', priority: 10 }]);
    const campaign = await campaignWith(world, 'Premium', [{ step_type: 'EMAIL', subject_line: 'HP intro' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'HAS_EMAIL_PREMIUM' }, {
      YES: { step_type: 'EMAIL', subject_line: 'HP premium' },
      NO: { step_type: 'EMAIL', subject_line: 'HP other' },
    });
    await prospectsIn(world, campaign.id, [{ email: 'a@premium.example' }, { email: 'b@office.example' }, { email: 'c@plain.example' }, { email: 'd@nomx.example' }]);
    await activate(world, campaign.id);
    await advance(world.stack, clock, 2);
    expect((await emailedWith('HP premium')).sort()).toEqual(['a@premium.example', 'b@office.example']);
    expect((await emailedWith('HP other')).sort()).toEqual(['c@plain.example', 'd@nomx.example']);
  });

  it('ACCEPTED_INVITE: YES as soon as the provider reports the acceptance, NO when its delay passes without it', async () => {
    clock.set('2026-11-24T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const campaign = await campaignWith(world, 'Accepted', [{ step_type: 'NETWORK_INVITE', message_template: 'AI invite' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ACCEPTED_INVITE', delay_in_hours: 72 }, {
      YES: { step_type: 'NETWORK_MESSAGE', message_template: 'AI thanks' },
      NO: { step_type: 'EMAIL', subject_line: 'AI fallback' },
    });
    const [accepting, silent] = await prospectsIn(world, campaign.id, [
      { network_profile_url: 'https://www.linkedin.com/in/ai-accepting', email: 'accepting@example.com' },
      { network_profile_url: 'https://www.linkedin.com/in/ai-silent', email: 'silent@example.com' },
    ]);
    await activate(world, campaign.id);
    await advance(stack, clock, 2);
    expect((await networkSends('AI invite')).map(([kind]) => kind)).toEqual(['invitation', 'invitation']);
    expect(await networkSends('AI thanks')).toEqual([]);

    const invitation = (await stack.provider.control.state()).invitations.find((item) => item.publicIdentifier === 'ai-accepting');
    if (!invitation) throw new Error('no invitation to ai-accepting');
    clock.set('2026-11-24T13:30:00.000Z');
    const accepted = await stack.provider.control.acceptInvitation(invitation.id);
    expect(accepted.deliveries.map((delivery) => delivery.status)).toEqual([200]);
    await play(stack);
    // Woken by the webhook: the message goes out at once, the other prospect still waits.
    expect(await networkSends('AI thanks')).toEqual([['chat', '2026-11-24T13:30:00.000Z']]);
    expect(await emailedWith('AI fallback')).toEqual([]);
    // A replayed webhook changes nothing.
    await stack.provider.control.acceptInvitation(invitation.id);
    await play(stack);
    expect(await networkSends('AI thanks')).toEqual([['chat', '2026-11-24T13:30:00.000Z']]);

    clock.set('2026-11-27T08:00:00.000Z'); // Friday, before the 72 hours of the second invitation
    await play(stack);
    expect(await emailedWith('AI fallback')).toEqual([]);
    await advance(stack, clock, 2);
    expect(await emailedWith('AI fallback')).toEqual(['silent@example.com']);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [accepting as number]: { status: 'FINISHED', last_error: null },
      [silent as number]: { status: 'FINISHED', last_error: null },
    });
    const { Items } = await stack.db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `CAMPAIGN#${String(campaign.id).padStart(16, '0')}#EVENTS` },
      }),
    );
    expect((Items ?? []).map((item) => [item.kind, item.prospectId, item.ref])).toEqual([['INVITE_ACCEPTED', accepting, 'invite']]);
  });

  it('ACCEPTED_INVITE: a connection seen on the profile at the deadline, without a webhook, takes YES and counts as accepted once', async () => {
    clock.set('2026-12-01T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const campaign = await campaignWith(world, 'Accepted quietly', [{ step_type: 'NETWORK_INVITE', message_template: 'AQ invite' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ACCEPTED_INVITE', delay_in_hours: 48 }, {
      YES: { step_type: 'NETWORK_MESSAGE', message_template: 'AQ thanks' },
      NO: { step_type: 'EMAIL', subject_line: 'AQ fallback' },
    });
    const [quiet] = await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/aq-quiet', email: 'quiet@example.com' }]);
    await activate(world, campaign.id);
    await advance(stack, clock, 2);
    expect((await networkSends('AQ invite')).map(([kind]) => kind)).toEqual(['invitation']);
    // Connected, but the provider's webhook never comes.
    await stack.provider.control.setProfile('aq-quiet', { network_distance: 'FIRST_DEGREE' });
    await advance(stack, clock, 50);
    expect((await networkSends('AQ thanks')).map(([kind]) => kind)).toEqual(['chat']);
    expect(await emailedWith('AQ fallback')).toEqual([]);
    const analytics = async () =>
      (await stack.call<{ analytics: Record<string, unknown> }>('GET', `/public/campaigns/${campaign.id}/analytics/`, { apiKey: world.ws.key })).body.analytics;
    const counted = (body: Record<string, unknown>) => [body.amount_of_invites_sent, body.amount_of_invites_accepted];
    expect(counted(await analytics())).toEqual([1, 1]);
    // The webhook, late after all: the acceptance is already counted.
    const invitation = (await stack.provider.control.state()).invitations.find((item) => item.publicIdentifier === 'aq-quiet');
    if (!invitation) throw new Error('no invitation to aq-quiet');
    await stack.provider.control.acceptInvitation(invitation.id);
    await play(stack);
    expect(counted(await analytics())).toEqual([1, 1]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [quiet as number]: { status: 'FINISHED', last_error: null } });
  });

  it('ACCEPTED_INVITE: the deadline look goes through the account that sent the invitation, waited for while it cannot look', async () => {
    clock.set('2026-12-08T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    await stack.provider.control.createAccount({ id: 'sbx-network-looker', type: 'LINKEDIN', name: 'Looker' });
    const registered = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: world.ws.key, body: { provider_account_id: 'sbx-network-looker' } });
    expect(registered.status, registered.text).toBe(201);
    const other = registered.body.account.id;
    const { campaign, id } = await invitedOne('Looked through the inviter', 'LI', 'li-other');
    expect((await networkSends('LI invite')).map(([kind]) => kind)).toEqual(['invitation']);
    // The second account joins the campaign; the prospect is a connection of that one only, and
    // the inviting account is disconnected when the deadline comes.
    const attached = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { account_ids: [world.mailbox, world.network, other] } });
    expect(attached.status, attached.text).toBe(200);
    await stack.provider.control.setProfile('li-other', { network_distance: 'FIRST_DEGREE', account_id: 'sbx-network-looker' });
    await stack.provider.control.setAccountStatus('sbx-network-dev', 'CREDENTIALS');
    try {
      await advance(stack, clock, 26);
      // Not YES through the other account's connections: it waits for the inviter, and says so.
      expect([...(await emailedWith('LI yes')), ...(await emailedWith('LI no'))]).toEqual([]);
      expect(await prospectStatuses(world, campaign.id)).toEqual({
        [id as number]: { status: 'IN_PROGRESS', last_error: `sender account ${world.network}, which contacted the prospect, cannot send now (paused, or not connected): it is waited for` },
      });
    } finally {
      // Back (for the tests after this one too): its look says the invitation was not accepted.
      await stack.provider.control.setAccountStatus('sbx-network-dev', 'OK');
    }
    await advance(stack, clock, 2);
    expect([await emailedWith('LI yes'), await emailedWith('LI no')]).toEqual([[], ['li-other@example.com']]);
  });

  it('ACCEPTED_INVITE: the deadline look goes through the inviting account after it was detached from the campaign', async () => {
    clock.set('2026-12-15T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const other = await lookerAccount();
    const { campaign } = await invitedOne('Inviter detached', 'ID', 'id-other');
    expect((await networkSends('ID invite')).map(([kind]) => kind)).toEqual(['invitation']);
    // The inviter leaves the campaign for the other account, of which the prospect is a connection.
    const swapped = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { account_ids: [world.mailbox, other] } });
    expect(swapped.status, swapped.text).toBe(200);
    await stack.provider.control.setProfile('id-other', { network_distance: 'FIRST_DEGREE', account_id: 'sbx-network-looker' });
    await advance(stack, clock, 26);
    expect([await emailedWith('ID yes'), await emailedWith('ID no')]).toEqual([[], ['id-other@example.com']]);
  });

  it('ACCEPTED_INVITE: an acceptance of an earlier stay in the campaign does not answer a new stay’s invitation', async () => {
    clock.set('2026-12-22T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const other = await lookerAccount();
    const { campaign, id } = await invitedOne('Stayed twice', 'ST', 'st-twice');
    const first = (await stack.provider.control.state()).invitations.find((item) => item.publicIdentifier === 'st-twice');
    if (!first) throw new Error('no invitation to st-twice');
    await stack.provider.control.acceptInvitation(first.id);
    await play(stack);
    expect(await emailedWith('ST yes')).toEqual(['st-twice@example.com']);
    // Out, the campaign moved to the other network account, and in again: a new stay, a new invitation.
    await newStay(campaign.id, id, other, 'st-twice');
    expect((await stack.provider.control.state()).invitations.filter((item) => item.publicIdentifier === 'st-twice').map((item) => item.accountId)).toEqual([
      'sbx-network-dev',
      'sbx-network-looker',
    ]);
    // Not YES at once: the first stay's acceptance was of another account's invitation.
    expect(await emailedWith('ST yes')).toEqual(['st-twice@example.com']);
    await advance(stack, clock, 24);
    expect(await emailedWith('ST no')).toEqual(['st-twice@example.com']);
  });

  it('ACCEPTED_INVITE: a new stay’s own invitation, once accepted, answers YES at once; the campaign counts the prospect’s acceptance once', async () => {
    clock.set('2027-01-05T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const other = await lookerAccount();
    const { campaign, id } = await invitedOne('Accepted twice', 'AT', 'at-twice');
    const invitations = async () => (await stack.provider.control.state()).invitations.filter((item) => item.publicIdentifier === 'at-twice');
    await stack.provider.control.acceptInvitation((await invitations())[0]?.id as string);
    await play(stack);
    expect(await emailedWith('AT yes')).toEqual(['at-twice@example.com']);
    // Out, the campaign moved to the other network account, and in again: a new stay, a new invitation.
    await newStay(campaign.id, id, other, 'at-twice');
    const second = (await invitations()).find((item) => item.accountId === 'sbx-network-looker');
    await stack.provider.control.acceptInvitation(second?.id as string);
    await play(stack);
    // YES when it is accepted, not at the 24-hour deadline's look.
    expect([await emailedWith('AT yes'), await emailedWith('AT no')]).toEqual([['at-twice@example.com', 'at-twice@example.com'], []]);
    const analytics = await stack.call<{ analytics: Record<string, unknown> }>('GET', `/public/campaigns/${campaign.id}/analytics/`, { apiKey: world.ws.key });
    expect(analytics.body.analytics).toMatchObject({ amount_of_invites_sent: 2, amount_of_invites_accepted: 1 });
  });

  it('ACCEPTED_INVITE: an invitation of an account deleted and registered again counts when accepted (the account comes back as itself)', async () => {
    clock.set('2026-12-29T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const other = await lookerAccount();
    await invitedOne('Came back', 'CB', 'cb-back', [world.mailbox, other]);
    const invitation = (await stack.provider.control.state()).invitations.find((item) => item.publicIdentifier === 'cb-back');
    expect(invitation?.accountId).toBe('sbx-network-looker');
    // The account is deleted (which detaches it) and registered again, then the invitation is accepted.
    expect((await stack.call('DELETE', `/public/accounts/${other}/`, { apiKey: world.ws.key })).status).toBe(200);
    const again = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: world.ws.key, body: { provider_account_id: 'sbx-network-looker' } });
    expect([again.status, again.body.account.id]).toEqual([201, other]);
    await stack.provider.control.acceptInvitation(invitation?.id as string);
    await play(stack);
    expect([await emailedWith('CB yes'), await emailedWith('CB no')]).toEqual([['cb-back@example.com'], []]);
  });

  it('ALREADY_CONNECTED: a first-degree connection (asked live) takes YES, anyone else NO', async () => {
    clock.set('2026-11-30T09:00:00.000Z'); // Monday
    const { stack } = world;
    const campaign = await campaignWith(world, 'Connected', [{ step_type: 'EMAIL', subject_line: 'AC intro' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ALREADY_CONNECTED' }, {
      YES: { step_type: 'NETWORK_MESSAGE', message_template: 'AC hello friend' },
      NO: { step_type: 'NETWORK_INVITE', message_template: 'AC invite' },
    });
    await prospectsIn(world, campaign.id, [
      { network_profile_url: 'https://www.linkedin.com/in/ac-friend' },
      { network_profile_url: 'https://www.linkedin.com/in/ac-stranger' },
    ]);
    await stack.provider.control.setProfile('ac-friend', { network_distance: 'FIRST_DEGREE' });
    await activate(world, campaign.id);
    await advance(stack, clock, 1);
    expect((await networkSends('AC hello friend')).map(([kind]) => kind)).toEqual(['chat']);
    expect((await networkSends('AC invite')).map(([kind]) => kind)).toEqual(['invitation']);
    const profileReads = (await stack.provider.control.requests()).filter((request) => /\/users\/ac-(friend|stranger)$/.test(request.path));
    // One live look per prospect for the condition, one more before each network send.
    expect(profileReads.map((request) => request.path.split('/').pop()).sort()).toEqual(['ac-friend', 'ac-friend', 'ac-stranger', 'ac-stranger']);
  });

  it('ACCEPTED_INVITE: YES at once for a prospect the invitation step found already connected, by its profile or by the provider’s answer', async () => {
    clock.set('2026-12-01T09:00:00.000Z'); // Tuesday
    const { stack } = world;
    const campaign = await campaignWith(world, 'Connected first', [{ step_type: 'NETWORK_INVITE', message_template: 'CF invite' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ACCEPTED_INVITE', delay_in_hours: 72 }, {
      YES: { step_type: 'EMAIL', subject_line: 'CF yes' },
      NO: { step_type: 'EMAIL', subject_line: 'CF no' },
    });
    await prospectsIn(world, campaign.id, [
      { network_profile_url: 'https://www.linkedin.com/in/cf-profile', email: 'cf-profile@example.com' },
    ]);
    // The profile says first degree: the invitation is skipped before any call to send it.
    await stack.provider.control.setProfile('cf-profile', { network_distance: 'FIRST_DEGREE' });
    await activate(world, campaign.id);
    await advance(stack, clock, 1);
    // The provider answers the invitation with "already connected" (its profile still said second degree).
    await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/cf-answer', email: 'cf-answer@example.com' }], { activate: true });
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/action_already_performed', path: '/api/v1/users/invite', times: 1 });
    await advance(stack, clock, 1);
    expect(await networkSends('CF invite')).toEqual([]);
    // Neither waits the 72 hours for an acceptance, nor takes NO.
    expect((await emailedWith('CF yes')).sort()).toEqual(['cf-answer@example.com', 'cf-profile@example.com']);
    expect(await emailedWith('CF no')).toEqual([]);
  });

  it('a network condition without a network account that can look waits and says why on the prospects page', async () => {
    clock.set('2026-12-02T09:00:00.000Z'); // Wednesday
    const { stack } = world;
    const campaign = await campaignWith(world, 'No network to look', [{ step_type: 'EMAIL', subject_line: 'NL intro' }]);
    await withCondition(world, campaign.id, campaign.stepIds[0] as number, { condition_type: 'ALREADY_CONNECTED', delay_in_hours: 1 }, {
      YES: { step_type: 'EMAIL', subject_line: 'NL yes' },
      NO: { step_type: 'EMAIL', subject_line: 'NL no' },
    });
    const [id] = await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/nl-profile', email: 'nl@example.com' }]);
    await activate(world, campaign.id);
    expect(await emailedWith('NL intro')).toEqual(['nl@example.com']);
    // The network account is detached before the condition's hour is up (activation asks for one).
    const detached = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { account_ids: [world.mailbox] } });
    expect(detached.status, detached.text).toBe(200);
    await advance(stack, clock, 2);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [id as number]: { status: 'IN_PROGRESS', last_error: NO_ACCOUNT_CAN_SEND } });
    // Attached again, the next look answers and the wait's reason goes.
    const attached = await stack.call('PATCH', `/public/campaigns/${campaign.id}/`, { apiKey: world.ws.key, body: { account_ids: [world.mailbox, world.network] } });
    expect(attached.status, attached.text).toBe(200);
    await advance(stack, clock, 1);
    expect([...(await emailedWith('NL yes')), ...(await emailedWith('NL no'))]).toEqual(['nl@example.com']);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [id as number]: { status: 'FINISHED', last_error: null } });
  });
});

