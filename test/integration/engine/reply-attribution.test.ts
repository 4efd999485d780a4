import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outreachActionKey } from '../../../shared/db/keys';
import { chooseVariant } from '../../../shared/domain/engine/render';
import { ManualClock } from '../../../shared/time/clock';
import { EVERY_DAY_ALL_DAY, type EngineWorld, advance, apiOf, campaignWith, claimedAndCrashed, engineWorld, extraAccount, outcomesOf, prospectsIn, sandboxSent } from './helpers';

const settings = { timezone: 'UTC', sending_window: EVERY_DAY_ALL_DAY, email_max_messages: 100 };

/**
 * A reply is attributed to the send it answers (docs/analytics.md, "Attribution"): the variant that
 * send went out with, whatever the step's texts are when the reply comes or the send is settled.
 */
describe('reply attribution', () => {
  const clock = new ManualClock('2027-03-08T09:00:00.000Z');
  let world: EngineWorld;
  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const call = apiOf(() => world);

  it('counts a chat reply for the variant a crash-settled message was claimed with, after a B text was added (found by a review of 2026-11-28)', async () => {
    const { stack } = world;
    // A campaign whose step, once given a B text, puts this prospect on B (a 50/50 hash: tried until so).
    let found: { campaignId: number; stepId: number; prospectId: number; slug: string } | undefined;
    for (let attempt = 0; attempt < 10 && !found; attempt += 1) {
      const slug = `crash-ab-${attempt}`;
      const campaign = await campaignWith(world, `Crash AB ${attempt}`, [{ step_type: 'NETWORK_MESSAGE', message_template: `Crash AB ${attempt} {{first_name}}` }], settings);
      const [prospectId] = await prospectsIn(world, campaign.id, [{ first_name: 'Lena', network_profile_url: `https://www.linkedin.com/in/${slug}` }]);
      const stepId = campaign.stepIds[0] as number;
      if (chooseVariant({ id: stepId, messageTemplateB: 'B {{first_name}}', subjectLineB: '' }, prospectId as number) === 'B') {
        await stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
        found = { campaignId: campaign.id, stepId, prospectId: prospectId as number, slug };
      }
    }
    if (!found) throw new Error('no prospect on B in 10 tries');
    const { campaignId, stepId, prospectId, slug } = found;
    const text = `Crash AB ${campaignId} Lena`;
    await call('PATCH', `/public/campaigns/${campaignId}/steps/${stepId}/`, { message_template: `Crash AB ${campaignId} {{first_name}}` });
    expect((await stack.call('POST', `/public/campaigns/${campaignId}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await stack.drain('campaign-scheduling');
    // Claimed (variant A: the step had no B text) and crashed after the provider sent it.
    await claimedAndCrashed(stack, clock, campaignId, prospectId, 'MESSAGE', world.network, text);
    await stack.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: outreachActionKey(campaignId, prospectId),
        UpdateExpression: 'SET #claim.variant = :a',
        ExpressionAttributeNames: { '#claim': 'claim' },
        ExpressionAttributeValues: { ':a': 'A' },
      }),
    );
    const form = new FormData();
    form.set('account_id', 'sbx-network-dev');
    form.set('attendees_ids', slug);
    form.set('text', text);
    expect((await fetch(`${stack.provider.url}/api/v1/chats`, { method: 'POST', headers: { 'X-API-KEY': stack.provider.accessToken }, body: form })).status).toBe(201);
    // A B text added to the step before the crash is settled.
    await call('PATCH', `/public/campaigns/${campaignId}/steps/${stepId}/`, { message_template_b: 'B {{first_name}}' });
    await advance(stack, clock, 0.5);
    expect((await outcomesOf(stack, campaignId)).map((o) => [o.outcome, o.variant, o.reason])).toEqual([['SENT', 'A', 'settled after a crash: the chat shows the message']]);
    expect((await sandboxSent(stack)).filter((item) => item.kind === 'chat' && item.text === text)).toHaveLength(1);
    // The prospect answers in the chat.
    await stack.provider.control.reply({ account_id: 'sbx-network-dev', from: slug, text: 'Answer' });
    const analytics = await call<{ ab_testing: { tests: { step_id: number; variant_a: Record<string, number>; variant_b: Record<string, number> }[] } }>(
      'GET',
      `/public/campaigns/${campaignId}/analytics/`,
    );
    const test = analytics.ab_testing.tests.find((t) => t.step_id === stepId);
    expect([test?.variant_a.sent_count, test?.variant_a.reply_count, test?.variant_b.sent_count, test?.variant_b.reply_count]).toEqual([1, 1, 0, 0]);
  });

  it('counts a reply in a new thread, to another of the workspace’s mailboxes, by the account of the send it answers (found by a probe of 2026-11-28)', async () => {
    const { stack } = world;
    const other = await extraAccount(world, 'MAIL', 'sbx-mail-other');
    const campaign = await campaignWith(world, 'Reply elsewhere', [{ step_type: 'EMAIL', subject_line: 'RE first' }], { ...settings, account_ids: [world.mailbox] });
    await prospectsIn(world, campaign.id, [{ email: 'oz@elsewhere.example' }]);
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    await advance(stack, clock, 0.1);
    expect((await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.subject === 'RE first').map((item) => item.accountId)).toEqual(['sbx-mailbox-dev']);
    // A new thread (matched by the address) to the other mailbox.
    await stack.provider.control.reply({ account_id: 'sbx-mail-other', channel: 'EMAIL', from: 'oz@elsewhere.example', thread_with: 'nobody@elsewhere.example', text: 'Writing from scratch' });
    const perAccount = async (accountId: number) =>
      (await call<{ analytics: Record<string, unknown> }>('GET', `/public/analytics/?sender_accounts=${accountId}&campaigns=${campaign.id}`)).analytics;
    expect([(await perAccount(world.mailbox)).total_replies, (await perAccount(other)).total_replies]).toEqual([1, 0]);
  });
});
