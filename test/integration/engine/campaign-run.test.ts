import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sentEmailByMessageId, sentEmailKey } from '../../../shared/db/keys';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { ManualClock } from '../../../shared/time/clock';
import {
  type EngineWorld,
  actionsOf,
  activate,
  advance,
  campaignStatus,
  campaignWith,
  engineWorld,
  outcomesOf,
  prospectStatuses,
  prospectsIn,
  sandboxSent,
} from './helpers';

/**
 * Whole campaigns played with the injected clock: an email, then an invitation two days later,
 * each inside the default window (Monday to Friday, 09:00-17:00 Europe/Amsterdam).
 */
const bySubject = (a: { subject?: string }, b: { subject?: string }) => (a.subject ?? '').localeCompare(b.subject ?? '');

describe('the outreach engine plays a campaign', () => {
  // Monday 2026-11-23 10:00 in Amsterdam (UTC+1).
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  it('sends each step once, at its time, then finishes the prospects and completes the campaign', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Run', [
      { step_type: 'EMAIL', subject_line: 'Hello {{first_name}}', message_template: 'Hi {{first_name}} of {{company_name}}' },
      { step_type: 'NETWORK_INVITE', message_template: 'Connect, {{first_name}}?', delay_in_hours: 48 },
    ]);
    const [ada, bob] = await prospectsIn(world, campaign.id, [{ first_name: 'Ada', company_name: 'Acme' }, { first_name: 'Bob' }]);
    await stack.provider.control.clearRequests();
    await activate(world, campaign.id);

    const emails = (await sandboxSent(stack)).filter((item) => item.kind === 'email');
    expect(emails.map((e) => ({ to: e.to, subject: e.subject, text: e.text, accountId: e.accountId, at: e.at })).sort(bySubject)).toEqual([
      { to: expect.stringMatching(/^person\d+@example\.com$/), subject: 'Hello Ada', text: 'Hi Ada of Acme', accountId: 'sbx-mailbox-dev', at: '2026-11-23T09:00:00.000Z' },
      { to: expect.stringMatching(/^person\d+@example\.com$/), subject: 'Hello Bob', text: 'Hi Bob of ', accountId: 'sbx-mailbox-dev', at: '2026-11-23T09:00:00.000Z' },
    ]);
    // Each email is kept under the provider's tracking id; the provider's mail_sent webhook links its Message-ID to it.
    const sentEmails = new DynamoOutcomeLog(stack.db, stack.tableName, clock);
    for (const email of emails) {
      await expect
        .poll(async () => (await sentEmails.findByMessageId(email.messageId as string))?.trackingId, { timeout: 5000 })
        .toBe(email.trackingId);
    }
    expect(await sentEmails.findByMessageId('<never-sent@sandbox.local>')).toBeUndefined();
    // An email recorded before the link existed carries its Message-ID in gsi1, and is found by it still.
    const legacy = { trackingId: 'trk-legacy', workspaceId: 1, campaignId: 2, prospectId: 3, nodeId: 4, accountId: 5, at: '2026-11-20T09:00:00.000Z', messageId: '<legacy@sandbox.local>' };
    await stack.db.send(
      new PutCommand({ TableName: stack.tableName, Item: { ...sentEmailKey('trk-legacy'), ...sentEmailByMessageId('<legacy@sandbox.local>'), entityType: 'SentEmail', ...legacy } }),
    );
    expect(await sentEmails.findByMessageId('<legacy@sandbox.local>')).toEqual(legacy);
    // A webhook that comes before the sender's record links to nothing until the record is written.
    await sentEmails.setEmailMessageId('trk-early', '<early@sandbox.local>');
    expect(await sentEmails.findByMessageId('<early@sandbox.local>')).toBeUndefined();
    const early = { ...legacy, trackingId: 'trk-early', messageId: null };
    await sentEmails.recordEmail(early);
    expect(await sentEmails.findByMessageId('<early@sandbox.local>')).toEqual({ ...early, messageId: '<early@sandbox.local>' });
    expect(emails.map((e) => e.messageId)).toEqual([expect.stringMatching(/^<.+@sandbox\.local>$/), expect.stringMatching(/^<.+@sandbox\.local>$/)]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [ada as number]: { status: 'IN_PROGRESS', last_error: null },
      [bob as number]: { status: 'IN_PROGRESS', last_error: null },
    });

    // 47 hours later nothing more is due; at 48 the invitations go.
    await advance(stack, clock, 47);
    expect((await sandboxSent(stack)).filter((item) => item.kind === 'invitation')).toEqual([]);
    await advance(stack, clock, 1);
    const invitations = (await sandboxSent(stack)).filter((item) => item.kind === 'invitation');
    expect(invitations.map((i) => ({ text: i.text, accountId: i.accountId, at: i.at })).sort((a, b) => a.text.localeCompare(b.text))).toEqual([
      { text: 'Connect, Ada?', accountId: 'sbx-network-dev', at: '2026-11-25T09:00:00.000Z' },
      { text: 'Connect, Bob?', accountId: 'sbx-network-dev', at: '2026-11-25T09:00:00.000Z' },
    ]);

    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [ada as number]: { status: 'FINISHED', last_error: null },
      [bob as number]: { status: 'FINISHED', last_error: null },
    });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
    expect(await actionsOf(stack, campaign.id)).toEqual([]);
    const outcomes = await outcomesOf(stack, campaign.id);
    expect(outcomes.map((o) => [o.prospectId, o.nodeId, o.outcome, o.stepType, o.accountId, o.variant])).toEqual([
      [ada, campaign.stepIds[0], 'SENT', 'EMAIL', world.mailbox, 'A'],
      [ada, campaign.stepIds[1], 'SENT', 'NETWORK_INVITE', world.network, 'A'],
      [bob, campaign.stepIds[0], 'SENT', 'EMAIL', world.mailbox, 'A'],
      [bob, campaign.stepIds[1], 'SENT', 'NETWORK_INVITE', world.network, 'A'],
    ]);
    // Nothing more is ever sent.
    await advance(stack, clock, 72);
    expect((await sandboxSent(stack)).length).toBe(4);
  });

  it('sends a plain-text email with its line breaks as <br>, an HTML one as written, placeholder values escaped in both', async () => {
    const { stack } = world;
    const plain = await campaignWith(world, 'Plain text', [{ step_type: 'EMAIL', subject_line: 'Plain {{first_name}}', message_template: 'Hi {{first_name}},\n\nWe met at {{company_name}}: <https://a.example/x>, 2<3.\r\nBest,\nMe' }]);
    const html = await campaignWith(world, 'Written as HTML', [{ step_type: 'EMAIL', subject_line: 'Html {{first_name}}', message_template: '<p>Hi {{first_name}},</p>\n<p>{{company_name}}</p>' }]);
    await prospectsIn(world, plain.id, [{ first_name: 'Ada', company_name: 'Smith & Co' }]);
    await prospectsIn(world, html.id, [{ first_name: 'Bea', company_name: 'Tags <b>' }]);
    for (const campaign of [plain, html]) await activate(world, campaign.id);
    // Saturday: both go when the window opens on Monday.
    await advance(stack, clock, 48);
    const bodies = (await sandboxSent(stack)).filter((item) => item.kind === 'email' && ['Plain Ada', 'Html Bea'].includes(item.subject ?? '')).map((item) => [item.subject, item.text]);
    expect(bodies.sort()).toEqual([
      // A form field's line break goes as CRLF (multipart/form-data), as to the real provider.
      ['Html Bea', '<p>Hi Bea,</p>\r\n<p>Tags &lt;b&gt;</p>'],
      // An autolink and a lone < are text, not tags.
      ['Plain Ada', 'Hi Ada,<br><br>We met at Smith &amp; Co: &lt;https://a.example/x&gt;, 2&lt;3.<br>Best,<br>Me'],
    ]);
  });
});
