import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundLinkKey } from '../../../shared/db/keys';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { invitationLink } from '../../../shared/domain/inbox/inbound-router';
import { FOUND_AFTER_LOST_ANSWER, INVITATION_FOUND_AFTER_LOST_ANSWER } from '../../../shared/domain/engine/steps';
import { ManualClock } from '../../../shared/time/clock';
import {
  type EngineWorld,
  actionsOf,
  activate,
  advance,
  campaignWith,
  claimedAndCrashed,
  engineWorld,
  extraAccount,
  outcomesOf,
  prospectStatuses,
  prospectsIn,
  sandboxSent,
  tick,
} from './helpers';

/**
 * A network message whose provider call got no answer (a timeout, or a crash after the claim) may
 * have gone out: the engine looks for it in the account's chat with the prospect before sending it
 * again, so the prospect gets it once (docs/engine.md, "A timeout is ambiguous" and the crash rule).
 */
describe('network messages whose answer was lost', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    // A short bound, so a call the sandbox never answers times out at once.
    world = await engineWorld(clock, { providerTimeoutMs: 300 });
  });
  afterAll(async () => world?.stack.stop());

  const chatsWithText = async (text: string) => (await sandboxSent(world.stack)).filter((item) => item.kind === 'chat' && item.text === text);
  const outcomeSummary = async (campaignId: number) =>
    (await outcomesOf(world.stack, campaignId)).map((o) => ({ prospect: o.prospectId, outcome: o.outcome, reason: o.reason, chatId: o.chatId ?? null, messageId: o.messageId ?? null }));
  /** One prospect, a first-degree connection of the network account, in a campaign of one message step. */
  const messageCampaign = async (name: string, slug: string) => {
    const campaign = await campaignWith(world, name, [{ step_type: 'NETWORK_MESSAGE', message_template: `${name} {{first_name}}` }]);
    const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Lena', network_profile_url: `https://www.linkedin.com/in/${slug}` }]);
    await world.stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
    return { campaign, prospectId: prospectId as number, text: `${name} Lena` };
  };
  const conversationTexts = async (prospectId: number) => {
    const response = await world.stack.call<{ messages: { text: string; kind: string }[] }>('GET', `/public/chats/${prospectId}/messages/`, { apiKey: world.ws.key });
    expect(response.status, response.text).toBe(200);
    return response.body.messages.map((message) => `${message.kind} ${message.text}`);
  };
  const conversationTimes = async (prospectId: number) =>
    (await world.stack.call<{ messages: { sent_at: string }[] }>('GET', `/public/chats/${prospectId}/messages/`, { apiKey: world.ws.key })).body.messages.map((message) => message.sent_at);

  it('finds a message the provider sent without answering, and does not send it again', async () => {
    const { campaign, prospectId, text } = await messageCampaign('Lost answer', 'lena-lost');
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
    await activate(world, campaign.id);
    // Carried out, but no answer: the engine cannot know, and waits for its retry.
    const [sent] = await chatsWithText(text);
    expect(sent).toMatchObject({ accountId: 'sbx-network-dev', at: '2026-11-23T09:00:00.000Z' });
    expect(await actionsOf(world.stack, campaign.id)).toEqual([
      expect.objectContaining({
        attempts: 1,
        dueAt: '2026-11-23T09:01:00.000Z',
        claim: null,
        // Its counts stay taken: it may have gone out.
        answerLost: { nodeId: campaign.stepIds[0], at: '2026-11-23T09:00:00.000Z', accountId: world.network, text, variant: 'A', counted: { accountDay: '2026-11-23', campaignDay: '2026-11-23', campaignK: 1 } },
        atEntry: false,
        accounts: { NETWORK: world.network },
      }),
    ]);
    await advance(world.stack, clock, 1 / 60);
    // The retry found it in the chat: recorded as sent with the provider's ids, never sent twice.
    expect(await chatsWithText(text)).toHaveLength(1);
    expect(await outcomeSummary(campaign.id)).toEqual([{ prospect: prospectId, outcome: 'SENT', reason: FOUND_AFTER_LOST_ANSWER, chatId: sent?.chatId, messageId: sent?.messageId }]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospectId]: { status: 'FINISHED', last_error: null } });
    expect(await conversationTexts(prospectId)).toEqual([`MESSAGE ${text}`]);
    // Dated when it went out (the lost attempt's claim), as its outcome record is, not by the look.
    expect(await conversationTimes(prospectId)).toEqual(['2026-11-23T09:00:00.000Z']);
    expect((await outcomesOf(world.stack, campaign.id)).map((o) => o.at)).toEqual(['2026-11-23T09:00:00.000Z']);
  });

  it('sends on the retry a message whose call timed out before the provider carried it out, once', async () => {
    const { campaign, prospectId, text } = await messageCampaign('Timed out', 'tim-timeout');
    await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/chats', times: 1 });
    await activate(world, campaign.id);
    expect(await chatsWithText(text)).toEqual([]);
    expect(await actionsOf(world.stack, campaign.id)).toEqual([expect.objectContaining({ attempts: 1, answerLost: { nodeId: campaign.stepIds[0], at: '2026-11-23T09:01:00.000Z', accountId: world.network, text, variant: 'A', counted: { accountDay: '2026-11-23', campaignDay: '2026-11-23', campaignK: 1 } } })]);
    await advance(world.stack, clock, 1 / 60);
    const sent = await chatsWithText(text);
    expect(sent.map((item) => item.at)).toEqual(['2026-11-23T09:02:00.000Z']);
    expect(await outcomeSummary(campaign.id)).toEqual([{ prospect: prospectId, outcome: 'SENT', reason: null, chatId: sent[0]?.chatId, messageId: sent[0]?.messageId }]);
    expect(await conversationTexts(prospectId)).toEqual([`MESSAGE ${text}`]);
  });

  it('settles a crash after the claim of a message from the chat: sent when it shows there, sent now when not', async () => {
    const { stack } = world;
    const shown = await messageCampaign('Crash shown', 'cora-crashed');
    const missing = await messageCampaign('Crash missing', 'mia-missing');
    for (const { campaign } of [shown, missing]) {
      expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    }
    await stack.drain('campaign-scheduling');
    // The provider sent one message, stamped by its own clock a minute behind ours...
    const form = new FormData();
    form.set('account_id', 'sbx-network-dev');
    form.set('attendees_ids', 'cora-crashed');
    form.set('text', shown.text);
    const direct = await fetch(`${stack.provider.url}/api/v1/chats`, { method: 'POST', headers: { 'X-API-KEY': stack.provider.accessToken }, body: form });
    expect(direct.status).toBe(201);
    const [sentBeforeCrash] = await chatsWithText(shown.text);
    clock.advance(60_000);
    // ...for a sender that claimed both and crashed: one after the provider sent the message, one before.
    const claimedAt = clock.now().toISOString();
    for (const { campaign, prospectId } of [shown, missing]) await claimedAndCrashed(stack, clock, campaign.id, prospectId, 'MESSAGE', world.network);
    await tick(stack);
    expect(await chatsWithText(missing.text)).toEqual([]);
    // Once the claim has expired, the crash rule looks in each chat.
    await advance(stack, clock, 0.5);
    expect(await chatsWithText(shown.text)).toHaveLength(1);
    expect(await outcomeSummary(shown.campaign.id)).toEqual([
      { prospect: shown.prospectId, outcome: 'SENT', reason: 'settled after a crash: the chat shows the message', chatId: sentBeforeCrash?.chatId, messageId: sentBeforeCrash?.messageId },
    ]);
    expect(await conversationTexts(shown.prospectId)).toEqual([`MESSAGE ${shown.text}`]);
    // Dated by the claim it went out under (analytics' day), not by the look half an hour later.
    expect((await outcomesOf(stack, shown.campaign.id)).map((o) => o.at)).toEqual([claimedAt]);
    const resent = await chatsWithText(missing.text);
    expect(resent).toHaveLength(1);
    expect(await outcomeSummary(missing.campaign.id)).toEqual([{ prospect: missing.prospectId, outcome: 'SENT', reason: null, chatId: resent[0]?.chatId, messageId: resent[0]?.messageId }]);
    for (const { campaign, prospectId } of [shown, missing]) {
      expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospectId]: { status: 'FINISHED', last_error: null } });
    }
  });

  it('sends the message when the look cannot find the person (404) and retries a look the provider refuses, never ending the sequence for it', async () => {
    const { campaign, prospectId, text } = await messageCampaign('Look refused', 'lou-look');
    const control = world.stack.provider.control;
    await control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/chats', times: 1 });
    // The second attempt's look is refused (400); the third's finds no such attendee (404).
    await control.addFault({ kind: 'status', status: 400, method: 'GET', path: '/api/v1/chat_attendees/', times: 1 });
    await activate(world, campaign.id);
    await advance(world.stack, clock, 1 / 60);
    expect(await chatsWithText(text)).toEqual([]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [prospectId]: { status: 'IN_REVIEW', last_error: 'network' },
    });
    await control.addFault({ kind: 'error', type: 'errors/resource_not_found', method: 'GET', path: '/api/v1/chat_attendees/', times: 1 });
    await advance(world.stack, clock, 5 / 60);
    const sent = await chatsWithText(text);
    expect(sent).toHaveLength(1);
    expect(await outcomeSummary(campaign.id)).toEqual([{ prospect: prospectId, outcome: 'SENT', reason: null, chatId: sent[0]?.chatId, messageId: sent[0]?.messageId }]);
  });

  it('gives up on a message whose attempts got no answer as UNCERTAIN, not FAILED: it may have gone out', async () => {
    const { campaign, prospectId, text } = await messageCampaign('Never answered', 'nora-never');
    await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/chats', times: 8 });
    await activate(world, campaign.id);
    // The retries: 1, 5, 15, 60, 180, 180, 180 minutes later, within the window (09:00-17:00 on weekdays).
    for (const minutes of [1, 5, 15, 60]) await advance(world.stack, clock, minutes / 60);
    for (let hour = 0; hour < 30; hour += 1) await advance(world.stack, clock, 1);
    expect(await chatsWithText(text)).toEqual([]);
    expect(await outcomeSummary(campaign.id)).toEqual([
      { prospect: prospectId, outcome: 'UNCERTAIN', reason: 'gave up after 8 attempts: timeout (an attempt got no answer: it may have gone out)', chatId: null, messageId: null },
    ]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospectId]: { status: 'FINISHED', last_error: 'gave up after 8 attempts: timeout' } });
  });

  it('settles a crashed message claim as UNCERTAIN when the provider cannot tell for a day', async () => {
    const { stack } = world;
    const { campaign, prospectId, text } = await messageCampaign('Crash unanswered', 'una-unanswered');
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    await claimedAndCrashed(stack, clock, campaign.id, prospectId, 'MESSAGE', world.network);
    await stack.provider.control.addFault({ kind: 'status', status: 503, method: 'GET', path: '/api/v1/chat_attendees/' });
    try {
      await advance(stack, clock, 12);
      // Asked at every sweep, the claim waits.
      expect((await actionsOf(stack, campaign.id)).map((action) => (action.claim as { token: string } | null)?.token)).toEqual(['crashed']);
      await advance(stack, clock, 12.5);
    } finally {
      await stack.provider.control.clearFaults();
    }
    expect(await chatsWithText(text)).toEqual([]);
    expect(await outcomeSummary(campaign.id)).toEqual([
      { prospect: prospectId, outcome: 'UNCERTAIN', reason: 'a crash between claim and result: not sent again (at most once)', chatId: null, messageId: null },
    ]);
  });

  describe('when something changes before the next attempt', () => {
    let second: number;
    const both = () => ({ account_ids: [world.mailbox, world.network, second] });
    const onlySecond = () => ({ account_ids: [world.mailbox, second] });
    const patch = async (path: string, body: unknown) => {
      const response = await world.stack.call('PATCH', path, { apiKey: world.ws.key, body });
      expect(response.status, response.text).toBe(200);
    };
    const invitationsTo = async (slug: string) => (await world.stack.provider.control.state()).invitations.filter((item) => item.publicIdentifier === slug).map((item) => item.accountId);

    beforeAll(async () => {
      // A Monday morning after the tests above; a second network account for the campaigns below.
      clock.set('2026-11-30T09:00:00.000Z');
      second = await extraAccount(world, 'LINKEDIN', 'sbx-network-second');
    });

    it('looks for the text that was sent, not the step as edited since: sent once', async () => {
      const { campaign, prospectId, text } = await messageCampaign('Edited after', 'eddie-edited');
      await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
      await activate(world, campaign.id);
      await patch(`/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`, { message_template: 'Edited after {{first_name}}, now longer' });
      await advance(world.stack, clock, 1 / 60);
      expect((await sandboxSent(world.stack)).filter((item) => item.kind === 'chat' && item.text.startsWith('Edited after')).map((item) => item.text)).toEqual([text]);
      expect(await conversationTexts(prospectId)).toEqual([`MESSAGE ${text}`]);
    });

    it('looks through the account that got no answer after it was detached: not sent again through another', async () => {
      const { campaign, prospectId, text } = await messageCampaign('Detached after', 'dora-detached');
      await patch(`/public/campaigns/${campaign.id}/`, both());
      await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
      await activate(world, campaign.id);
      const [sent] = await chatsWithText(text);
      await patch(`/public/campaigns/${campaign.id}/`, onlySecond());
      await advance(world.stack, clock, 1 / 60);
      expect((await chatsWithText(text)).map((item) => item.accountId)).toEqual([sent?.accountId]);
      const [outcome] = await outcomesOf(world.stack, campaign.id);
      const accountOf = (providerId: string | undefined) => (providerId === 'sbx-network-dev' ? world.network : second);
      expect(outcome).toMatchObject({ prospectId, outcome: 'SENT', reason: FOUND_AFTER_LOST_ANSWER, accountId: accountOf(sent?.accountId), messageId: sent?.messageId });
    });

    it('finds an invitation whose answer was lost pending (after its account was detached) or accepted: sent once, counted, its note kept', async () => {
      const campaign = await campaignWith(world, 'Invited unanswered', [{ step_type: 'NETWORK_INVITE', message_template: 'Unanswered invite {{first_name}}' }]);
      const [pending, accepting] = await prospectsIn(world, campaign.id, [
        { first_name: 'Penny', network_profile_url: 'https://www.linkedin.com/in/penny-pending' },
        { first_name: 'Ace', network_profile_url: 'https://www.linkedin.com/in/ace-accepting' },
      ]);
      for (const slug of ['penny-pending', 'ace-accepting']) await world.stack.provider.control.setProfile(slug, { network_distance: 'THIRD_DEGREE' });
      await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/users/invite', times: 2 });
      await activate(world, campaign.id);
      expect([await invitationsTo('penny-pending'), await invitationsTo('ace-accepting')]).toEqual([['sbx-network-dev'], ['sbx-network-dev']]);
      // One is accepted before the next attempt; then the inviting account leaves the campaign.
      const accepted = (await world.stack.provider.control.state()).invitations.find((item) => item.publicIdentifier === 'ace-accepting');
      await world.stack.provider.control.acceptInvitation(accepted?.id as string);
      await patch(`/public/campaigns/${campaign.id}/`, { account_ids: [world.mailbox, second] });
      await advance(world.stack, clock, 1 / 60);
      expect([await invitationsTo('penny-pending'), await invitationsTo('ace-accepting')]).toEqual([['sbx-network-dev'], ['sbx-network-dev']]);
      const outcomes = await outcomesOf(world.stack, campaign.id);
      expect(outcomes.map((o) => [o.prospectId, o.outcome, o.reason, o.accountId])).toEqual(
        [pending, accepting].map((id) => [id, 'SENT', INVITATION_FOUND_AFTER_LOST_ANSWER, world.network]).sort((a, b) => Number(a[0]) - Number(b[0])),
      );
      expect(await conversationTexts(pending as number)).toEqual(['INVITATION Unanswered invite Penny']);
    });

    it('waits for the account that got no answer while it is disconnected (detached too), spending no attempt and pausing no other account', async () => {
      const { stack } = world;
      const campaign = await campaignWith(world, 'Asked elsewhere', [{ step_type: 'NETWORK_INVITE', message_template: 'Asked elsewhere {{first_name}}' }]);
      const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Ella', network_profile_url: 'https://www.linkedin.com/in/ella-elsewhere' }]);
      await stack.provider.control.setProfile('ella-elsewhere', { network_distance: 'THIRD_DEGREE' });
      await stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/users/invite', times: 1 });
      await activate(world, campaign.id);
      await patch(`/public/campaigns/${campaign.id}/`, { account_ids: [world.mailbox, second] });
      await stack.provider.control.setAccountStatus('sbx-network-dev', 'CREDENTIALS');
      try {
        // Three hourly looks (within the weekday window): it waits, its attempts stay as they were.
        for (let hour = 0; hour < 3; hour += 1) await advance(stack, clock, 1);
        const accounts = (await stack.call<{ accounts: { id: number; sending_paused: unknown }[] }>('GET', '/public/accounts/', { apiKey: world.ws.key })).body.accounts;
        expect(accounts.find((account) => account.id === second)?.sending_paused).toBeNull();
        expect(await prospectStatuses(world, campaign.id)).toEqual({
          [prospectId as number]: { status: 'IN_REVIEW', last_error: `sender account ${world.network}, which contacted the prospect, cannot send now (paused, or not connected): it is waited for` },
        });
        expect(await actionsOf(stack, campaign.id)).toEqual([expect.objectContaining({ attempts: 1 })]);
      } finally {
        await stack.provider.control.setAccountStatus('sbx-network-dev', 'OK');
      }
      await advance(stack, clock, 1);
      expect(await invitationsTo('ella-elsewhere')).toEqual(['sbx-network-dev']);
      expect((await outcomesOf(stack, campaign.id)).map((o) => [o.outcome, o.reason, o.accountId])).toEqual([['SENT', INVITATION_FOUND_AFTER_LOST_ANSWER, world.network]]);
    });

    it('passes over an earlier step’s message of the same text: the step whose answer was lost is sent, once', async () => {
      const campaign = await campaignWith(world, 'Same text', [
        { step_type: 'NETWORK_MESSAGE', message_template: 'Same text {{first_name}}' },
        { step_type: 'NETWORK_MESSAGE', message_template: 'Same text {{first_name}}', delay_in_hours: 0 },
      ]);
      const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Vic', network_profile_url: 'https://www.linkedin.com/in/vic-same' }]);
      await world.stack.provider.control.setProfile('vic-same', { network_distance: 'FIRST_DEGREE' });
      // The first step goes; the second, right after it (no delay), gets no answer and was not carried out.
      await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/chats', times: 1, skip: 1 });
      await activate(world, campaign.id);
      expect(await chatsWithText('Same text Vic')).toHaveLength(1);
      await advance(world.stack, clock, 1 / 60);
      expect(await chatsWithText('Same text Vic')).toHaveLength(2);
      expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.nodeId, o.outcome, o.reason])).toEqual(campaign.stepIds.map((id) => [id, 'SENT', null]));
      expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospectId as number]: { status: 'FINISHED', last_error: null } });
    });

    it('records a send found after a lost answer with the variant it went out with, not the step’s as edited since', async () => {
      const campaign = await campaignWith(world, 'Variant kept', [{ step_type: 'NETWORK_MESSAGE', message_template: 'Variant A {{first_name}}' }]);
      const slugs = ['va-one', 'va-two', 'va-three', 'va-four', 'va-five', 'va-six'];
      await prospectsIn(world, campaign.id, slugs.map((slug) => ({ first_name: slug, network_profile_url: `https://www.linkedin.com/in/${slug}` })));
      for (const slug of slugs) await world.stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
      await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: slugs.length });
      await activate(world, campaign.id);
      // A B text, added before the next attempts: about half the prospects would now be on B.
      await patch(`/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`, { message_template_b: 'Variant B {{first_name}}' });
      await advance(world.stack, clock, 1 / 60);
      expect((await sandboxSent(world.stack)).filter((item) => item.text.startsWith('Variant ')).map((item) => item.text.split(' ')[1])).toEqual(slugs.map(() => 'A'));
      expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.outcome, o.reason, o.variant])).toEqual(slugs.map(() => ['SENT', FOUND_AFTER_LOST_ANSWER, 'A']));
    });

    it('looks for the last attempt that got no answer: sent once when the step was edited between two of them', async () => {
      const { campaign, text } = await messageCampaign('Twice lost', 'tom-twice');
      const control = world.stack.provider.control;
      // The first attempt is not carried out; the second, of the step as edited meanwhile, is, and its answer lost too.
      await control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/chats', times: 1 });
      await control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
      await activate(world, campaign.id);
      await patch(`/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`, { message_template: 'Twice lost, edited {{first_name}}' });
      await advance(world.stack, clock, 1 / 60);
      await advance(world.stack, clock, 5 / 60);
      expect((await sandboxSent(world.stack)).filter((item) => item.kind === 'chat' && item.text.startsWith('Twice lost')).map((item) => item.text)).toEqual(['Twice lost, edited Lena']);
      expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', FOUND_AFTER_LOST_ANSWER]]);
      expect(text).toBe('Twice lost Lena');
    });

    it('keeps a prospect whose first step got no answer at that step when another is put first: found there, the new one passed over', async () => {
      const { campaign, prospectId, text } = await messageCampaign('Entry lost', 'eve-entry');
      await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
      await activate(world, campaign.id);
      expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/pause/`, { apiKey: world.ws.key })).status).toBe(200);
      const added = await world.stack.call<{ step: { id: number } }>('POST', `/public/campaigns/${campaign.id}/steps/`, {
        apiKey: world.ws.key,
        body: { step_type: 'NETWORK_MESSAGE', message_template: 'Entry new {{first_name}}' },
      });
      expect(added.status, added.text).toBe(201);
      await patch(`/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`, { parent_step_id: added.body.step.id });
      expect((await world.stack.call('POST', `/public/campaigns/${campaign.id}/resume/`, { apiKey: world.ws.key })).status).toBe(200);
      await advance(world.stack, clock, 1 / 60);
      expect((await sandboxSent(world.stack)).filter((item) => item.kind === 'chat' && item.text.startsWith('Entry')).map((item) => item.text)).toEqual([text]);
      expect((await outcomesOf(world.stack, campaign.id)).map((o) => [o.nodeId, o.outcome, o.reason])).toEqual([[campaign.stepIds[0], 'SENT', FOUND_AFTER_LOST_ANSWER]]);
      expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospectId]: { status: 'FINISHED', last_error: null } });
    });

    it('settles a crashed message claim from the text claimed, whatever the step became since', async () => {
      const { stack } = world;
      const { campaign, prospectId, text } = await messageCampaign('Crash claimed', 'cid-claimed');
      expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
      await stack.drain('campaign-scheduling');
      await claimedAndCrashed(stack, clock, campaign.id, prospectId, 'MESSAGE', world.network, text);
      const form = new FormData();
      form.set('account_id', 'sbx-network-dev');
      form.set('attendees_ids', 'cid-claimed');
      form.set('text', text);
      expect((await fetch(`${stack.provider.url}/api/v1/chats`, { method: 'POST', headers: { 'X-API-KEY': stack.provider.accessToken }, body: form })).status).toBe(201);
      await patch(`/public/campaigns/${campaign.id}/steps/${campaign.stepIds[0]}/`, { message_template: 'Crash claimed, edited {{first_name}}' });
      await advance(stack, clock, 0.5);
      expect((await sandboxSent(stack)).filter((item) => item.kind === 'chat' && item.text.startsWith('Crash claimed')).map((item) => item.text)).toEqual([text]);
      expect((await outcomesOf(stack, campaign.id)).map((o) => [o.outcome, o.reason])).toEqual([['SENT', 'settled after a crash: the chat shows the message']]);
      expect(await conversationTexts(prospectId)).toEqual([`MESSAGE ${text}`]);
    });

    it('settles a crash after a found send was recorded through the account the record names, not the claim’s', async () => {
      const { stack } = world;
      const campaign = await campaignWith(world, 'Found then crashed', [{ step_type: 'NETWORK_INVITE', message_template: 'Found then crashed' }]);
      await patch(`/public/campaigns/${campaign.id}/`, both());
      const [prospectId] = await prospectsIn(world, campaign.id, [{ network_profile_url: 'https://www.linkedin.com/in/fay-found' }]);
      expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
      await stack.drain('campaign-scheduling');
      // Claimed through the second account; the record (an invitation found after a lost answer) names the first.
      const pending = await claimedAndCrashed(stack, clock, campaign.id, prospectId as number, 'INVITE', second, 'Found then crashed');
      await new DynamoOutcomeLog(stack.db, stack.tableName, clock).record({
        workspaceId: pending.workspaceId,
        campaignId: campaign.id,
        prospectId: prospectId as number,
        stint: pending.stint,
        nodeId: campaign.stepIds[0] as number,
        stepType: 'NETWORK_INVITE',
        outcome: 'SENT',
        reason: INVITATION_FOUND_AFTER_LOST_ANSWER,
        accountId: world.network,
        variant: 'A',
        at: pending.claim.at,
      });
      await advance(stack, clock, 0.5);
      const linkOf = async (accountId: number) =>
        (await stack.db.send(new GetCommand({ TableName: stack.tableName, Key: inboundLinkKey(invitationLink(pending.workspaceId, prospectId as number, accountId)), ConsistentRead: true }))).Item;
      expect([Boolean(await linkOf(world.network)), Boolean(await linkOf(second))]).toEqual([true, false]);
    });

    it('counts the acceptance of an invitation found accepted after its answer was lost, when no webhook named it', async () => {
      const campaign = await campaignWith(world, 'Accepted unseen', [{ step_type: 'NETWORK_INVITE', message_template: 'Accepted unseen {{first_name}}' }]);
      await prospectsIn(world, campaign.id, [{ first_name: 'Una', network_profile_url: 'https://www.linkedin.com/in/una-unseen' }]);
      await world.stack.provider.control.setProfile('una-unseen', { network_distance: 'THIRD_DEGREE' });
      await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/users/invite', times: 1 });
      await activate(world, campaign.id);
      // Accepted, and its webhook lost (or come while nothing named the invitation): the profile alone says so.
      await world.stack.provider.control.setProfile('una-unseen', { network_distance: 'FIRST_DEGREE', account_id: 'sbx-network-dev' });
      await advance(world.stack, clock, 1 / 60);
      expect(await invitationsTo('una-unseen')).toEqual(['sbx-network-dev']);
      const analytics = await world.stack.call<{ analytics: Record<string, unknown> }>('GET', `/public/campaigns/${campaign.id}/analytics/`, { apiKey: world.ws.key });
      expect(analytics.status, analytics.text).toBe(200);
      expect(analytics.body.analytics).toMatchObject({ amount_of_invites_sent: 1, amount_of_invites_accepted: 1 });
    });

    it('counts the next step’s delay from when a send found after a lost answer went out, not from the look', async () => {
      const { stack } = world;
      // Tuesday 09:00 in Amsterdam: the window stays open through the test.
      clock.set('2026-12-01T08:00:00.000Z');
      const campaign = await campaignWith(world, 'Found late', [
        { step_type: 'NETWORK_INVITE', message_template: 'Found late {{first_name}}' },
        { step_type: 'EMAIL', subject_line: 'Found late: follow-up', delay_in_hours: 2 },
      ]);
      await prospectsIn(world, campaign.id, [{ first_name: 'Fred', network_profile_url: 'https://www.linkedin.com/in/fred-found-late' }]);
      await stack.provider.control.setProfile('fred-found-late', { network_distance: 'THIRD_DEGREE' });
      await stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/users/invite', times: 1 });
      await activate(world, campaign.id);
      // The invitation went out at 08:00 without an answer; its account is disconnected for three hours, so the look waits.
      await stack.provider.control.setAccountStatus('sbx-network-dev', 'CREDENTIALS');
      try {
        for (let hour = 0; hour < 3; hour += 1) await advance(stack, clock, 1);
      } finally {
        await stack.provider.control.setAccountStatus('sbx-network-dev', 'OK');
      }
      await advance(stack, clock, 1);
      expect((await outcomesOf(stack, campaign.id)).map((o) => [o.outcome, o.reason, o.at])).toEqual([
        ['SENT', INVITATION_FOUND_AFTER_LOST_ANSWER, '2026-12-01T08:00:00.000Z'],
        ['SENT', null, '2026-12-01T12:00:00.000Z'],
      ]);
      // The email's 2 hours count from 08:00, over when the look found the invitation at 12:00: it went then, not at 14:00.
      const emails = (await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.subject === 'Found late: follow-up');
      expect(emails.map((item) => item.at)).toEqual(['2026-12-01T12:00:00.000Z']);
    });
  });
});
