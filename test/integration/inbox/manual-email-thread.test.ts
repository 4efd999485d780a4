import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { ManualClock } from '../../../shared/time/clock';
import { EVERY_DAY_ALL_DAY, type EngineWorld, activate, advance, campaignWith, engineWorld, prospectStatuses, prospectsIn, sandboxSent } from '../engine/helpers';

/**
 * A manual email from the inbox is recorded like the engine's (without a campaign or step), so that
 * what comes back in its thread finds its prospect: a bounce ends the sequence and suppresses the
 * address, a reply from another address stops it. Before 2026-11-29 neither was matched (a probe:
 * the campaign went on emailing the bounced address).
 */
describe('the thread of a manual email', () => {
  // Monday 2027-02-01, 09:00 UTC.
  const clock = new ManualClock('2027-02-01T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  const send = (prospectId: number, body: unknown) => world.stack.call<{ message: { subject_line: string } }>('POST', `/public/chats/${prospectId}/send-message/`, { apiKey: world.ws.key, body });
  const emailsWithSubject = async (subject: string) => (await sandboxSent(world.stack)).filter((sent) => sent.subject === subject).map((sent) => sent.to);
  const suppressed = async (domain: string) =>
    (await world.stack.call<{ suppressions: { value: string; reason: string; prospect_id: number | null }[] }>('GET', '/public/suppressions/', { apiKey: world.ws.key })).body.suppressions
      .filter((entry) => entry.value.endsWith(`@${domain}`))
      .map((entry) => [entry.value, entry.reason, entry.prospect_id]);
  /** Sends a manual email and waits for the provider's `mail_sent` webhook to link its Message-ID. */
  async function manualEmail(prospectId: number, body: Record<string, unknown>) {
    clock.advance(60_000);
    const response = await send(prospectId, body);
    expect(response.status, response.text).toBe(201);
    const sent = (await sandboxSent(world.stack)).at(-1) as { messageId: string; subject: string };
    expect(sent.subject).toBe(response.body.message.subject_line);
    const log = new DynamoOutcomeLog(world.stack.db, world.stack.tableName, clock);
    await expect.poll(async () => (await log.findByMessageId(sent.messageId))?.prospectId, { timeout: 5000 }).toBe(prospectId);
    return sent;
  }

  it('a bounce of a manual email ends the sequence as BOUNCED, suppresses the address and shows in the conversation; the next step is not sent', async () => {
    const campaign = await campaignWith(world, 'Manual bounce', [{ step_type: 'EMAIL', subject_line: 'MB one' }, { step_type: 'EMAIL', subject_line: 'MB two', delay_in_hours: 24 }], { sending_window: EVERY_DAY_ALL_DAY });
    const [prospect] = (await prospectsIn(world, campaign.id, [{ email: 'mb@manual-bounce.example' }])) as [number];
    await activate(world, campaign.id);
    expect(await emailsWithSubject('MB one')).toEqual(['mb@manual-bounce.example']);
    await manualEmail(prospect, { message: 'A quick note by hand' });
    // The mail system answers the manual email (the sandbox threads it on the last email to that address).
    clock.advance(60_000);
    await world.stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'mb@manual-bounce.example', text: '550 No such user', kind: 'bounce' });
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospect]: { status: 'BOUNCED', last_error: 'the email bounced (reported by the mail system)' } });
    expect(await suppressed('manual-bounce.example')).toEqual([['mb@manual-bounce.example', 'HARD_BOUNCE', prospect]]);
    const conversation = await world.stack.call<{ messages: { kind: string; sent_by_lead: boolean; subject_line: string | null }[] }>('GET', `/public/chats/${prospect}/messages/`, {
      apiKey: world.ws.key,
    });
    expect(conversation.body.messages.map((message) => [message.kind, message.sent_by_lead, message.subject_line])).toEqual([
      ['MESSAGE', false, 'MB one'],
      ['MESSAGE', false, 'Re: MB one'],
      ['BOUNCE', false, expect.any(String)],
    ]);
    await advance(world.stack, clock, 25);
    expect(await emailsWithSubject('MB two')).toEqual([]);
  });

  it('a reply from another address in the thread of a manual email stops the sequence (it is matched by the thread, not the sender)', async () => {
    const campaign = await campaignWith(world, 'Manual thread reply', [{ step_type: 'EMAIL', subject_line: 'MT one' }, { step_type: 'EMAIL', subject_line: 'MT two', delay_in_hours: 24 }], { sending_window: EVERY_DAY_ALL_DAY });
    const [prospect] = (await prospectsIn(world, campaign.id, [{ email: 'mt@manual-thread.example' }])) as [number];
    await activate(world, campaign.id);
    const manual = await manualEmail(prospect, { message: 'Following up by hand', subject_line: 'A word by hand' });
    // The prospect answers from their assistant's address, in the manual email's thread.
    await world.stack.provider.control.reply({ account_id: 'sbx-mailbox-dev', channel: 'EMAIL', from: 'assistant@manual-thread.example', text: 'Happy to talk', thread_with: 'mt@manual-thread.example' });
    expect(manual.subject).toBe('A word by hand');
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospect]: { status: 'REPLIED', last_error: null } });
    await advance(world.stack, clock, 25);
    expect(await emailsWithSubject('MT two')).toEqual([]);
  });

  it('gives the provider a recipient name on one line, for a campaign email and a manual one (a name imported with line breaks is no header of its own)', async () => {
    const campaign = await campaignWith(world, 'Names on one line', [{ step_type: 'EMAIL', subject_line: 'NL one' }], { sending_window: EVERY_DAY_ALL_DAY });
    const [prospect] = (await prospectsIn(world, campaign.id, [{ first_name: 'Eve\r\nBcc: attacker@evil.example', last_name: 'X\nCc:\tcc@evil.example', email: 'eve@one-line.example' }])) as [number];
    await activate(world, campaign.id);
    const names = async () => (await sandboxSent(world.stack)).filter((sent) => sent.to === 'eve@one-line.example').map((sent) => sent.toNames);
    expect(await names()).toEqual([['Eve Bcc: attacker@evil.example X Cc: cc@evil.example']]);
    await manualEmail(prospect, { message: 'By hand' });
    expect(await names()).toEqual([['Eve Bcc: attacker@evil.example X Cc: cc@evil.example'], ['Eve Bcc: attacker@evil.example X Cc: cc@evil.example']]);
  });

  it('an address the provider refuses for a manual email goes on the suppression list (HARD_BOUNCE) and ends the sequence as BOUNCED, and the 502 says so', async () => {
    const campaign = await campaignWith(world, 'Manual refused', [{ step_type: 'EMAIL', subject_line: 'MR one', delay_in_hours: 48 }], { sending_window: EVERY_DAY_ALL_DAY });
    const [prospect] = (await prospectsIn(world, campaign.id, [{ email: 'mr@manual-refused.example' }])) as [number];
    await activate(world, campaign.id);
    // Waiting for its first step (48 hours).
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospect]: { status: 'IN_REVIEW', last_error: null } });
    await world.stack.provider.control.addFault({ kind: 'error', type: 'errors/recipient_rejected', path: '/api/v1/emails', times: 1 });
    const refused = await send(prospect, { message: 'Hello', subject_line: 'By hand' });
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body).toEqual({ error: 'The provider could not send the message', details: expect.stringMatching(/errors\/recipient_rejected.*; the address is now on the suppression list \(HARD_BOUNCE\)$/) });
    expect(await suppressed('manual-refused.example')).toEqual([['mr@manual-refused.example', 'HARD_BOUNCE', prospect]]);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [prospect]: { status: 'BOUNCED', last_error: 'errors/recipient_rejected' } });
    // The campaign's email to it is never sent.
    await advance(world.stack, clock, 49);
    expect(await emailsWithSubject('MR one')).toEqual([]);
  });
});
