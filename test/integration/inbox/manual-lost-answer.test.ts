import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, engineWorld, prospectsIn, sandboxSent } from '../engine/helpers';

interface Message {
  id: string;
  channel: string;
  text: string;
  sent_at: string;
}

/**
 * A manual message whose provider answer was lost may have gone out: the chat is looked at before
 * the caller is told it failed, so a 502 is safe to send again (docs/engine.md, "Inbox").
 */
describe('a manual message whose provider answer was lost', () => {
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    // A short bound, so a call the sandbox never answers times out at once.
    world = await engineWorld(clock, { providerTimeoutMs: 300 });
  });
  afterAll(async () => world?.stack.stop());

  const send = (prospectId: number, body: unknown) =>
    world.stack.call<{ success: boolean; message: Message; error?: string; details?: string }>('POST', `/public/chats/${prospectId}/send-message/`, { apiKey: world.ws.key, body });
  const messages = async (prospectId: number) =>
    (await world.stack.call<{ messages: Message[] }>('GET', `/public/chats/${prospectId}/messages/`, { apiKey: world.ws.key })).body.messages.map((message) => message.text);
  const chatsWithText = async (text: string) => (await sandboxSent(world.stack)).filter((item) => (item.kind === 'chat' || item.kind === 'message') && item.text === text);
  const networkProspect = async (slug: string) => {
    const campaign = await world.stack.call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { apiKey: world.ws.key, body: { name: `Inbox ${slug}` } });
    const [prospectId] = await prospectsIn(world, campaign.body.campaign.id, [{ first_name: 'Lou', email: null, network_profile_url: `https://www.linkedin.com/in/${slug}` }]);
    await world.stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
    return prospectId as number;
  };

  it('answers 201 with the message when the provider carried it out without answering, in a new chat or an existing one', async () => {
    const prospectId = await networkProspect('lou-lost');
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/chats', times: 1 });
    const first = await send(prospectId, { message: 'Hello Lou' });
    expect(first.status, first.text).toBe(201);
    const [sent] = await chatsWithText('Hello Lou');
    expect(first.body.message).toEqual(expect.objectContaining({ id: sent?.messageId, channel: 'NETWORK', text: 'Hello Lou' }));
    // The same text again, into that chat, its answer lost too: the look tells it from the first.
    clock.advance(30_000);
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: `/api/v1/chats/${sent?.chatId}/messages`, times: 1 });
    const second = await send(prospectId, { message: 'Hello Lou' });
    expect(second.status, second.text).toBe(201);
    const both = await chatsWithText('Hello Lou');
    expect(both.map((item) => item.chatId)).toEqual([sent?.chatId, sent?.chatId]);
    expect(second.body.message.id).toBe(both[1]?.messageId);
    expect(await messages(prospectId)).toEqual(['Hello Lou', 'Hello Lou']);
  });

  it('answers 502, saying the chat does not show it yet, when the provider timed out before carrying it out; sent again, it goes once', async () => {
    const prospectId = await networkProspect('tia-timeout');
    await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: '/api/v1/chats', times: 1 });
    const failed = await send(prospectId, { message: 'Hi Tia' });
    expect([failed.status, failed.body.error]).toEqual([502, 'The provider could not send the message']);
    expect(failed.body.details).toMatch(/; the chat does not show it yet \(the provider may still carry it out\): look at the chat before sending it again$/);
    expect(await chatsWithText('Hi Tia')).toEqual([]);
    expect(await messages(prospectId)).toEqual([]);
    const again = await send(prospectId, { message: 'Hi Tia' });
    expect(again.status, again.text).toBe(201);
    const [sent] = await chatsWithText('Hi Tia');
    expect(await messages(prospectId)).toEqual(['Hi Tia']);
    // The same text a moment later, timed out: the one before is another send, not this one.
    clock.advance(30_000);
    await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: `/api/v1/chats/${sent?.chatId}/messages`, times: 1 });
    const timedOut = await send(prospectId, { message: 'Hi Tia' });
    expect([timedOut.status, timedOut.body.details?.endsWith('; the chat does not show it yet (the provider may still carry it out): look at the chat before sending it again')]).toEqual([502, true]);
    expect(await chatsWithText('Hi Tia')).toHaveLength(1);
    expect(await messages(prospectId)).toEqual(['Hi Tia']);
  });

  it('takes no earlier message of ours for the one whose answer was lost, whatever came between them', async () => {
    const prospectId = await networkProspect('olga-ok');
    const ok = await send(prospectId, { message: 'Ok' });
    expect(ok.status, ok.text).toBe(201);
    const [first] = await chatsWithText('Ok');
    clock.advance(10_000);
    expect((await send(prospectId, { message: 'Thanks' })).status).toBe(201);
    clock.advance(10_000);
    await world.stack.provider.control.reply({ account_id: 'sbx-network-dev', from: 'olga-ok', text: 'Sure' });
    clock.advance(10_000);
    await world.stack.provider.control.addFault({ kind: 'timeout', method: 'POST', path: `/api/v1/chats/${first?.chatId}/messages`, times: 1 });
    const timedOut = await send(prospectId, { message: 'Ok' });
    expect([timedOut.status, timedOut.body.error]).toEqual([502, 'The provider could not send the message']);
    expect(await chatsWithText('Ok')).toHaveLength(1);
    expect(await messages(prospectId)).toEqual(['Ok', 'Thanks', 'Sure']);
  });

  it('gives two sends at once whose answers were both lost a message each (a double-click)', async () => {
    const prospectId = await networkProspect('dora-double');
    expect((await send(prospectId, { message: 'First' })).status).toBe(201);
    const [chat] = await chatsWithText('First');
    clock.advance(10_000);
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: `/api/v1/chats/${chat?.chatId}/messages`, times: 2 });
    const both = await Promise.all([send(prospectId, { message: 'Same again' }), send(prospectId, { message: 'Same again' })]);
    expect(both.map((answer) => answer.status)).toEqual([201, 201]);
    const sent = await chatsWithText('Same again');
    expect(new Set(both.map((answer) => answer.body.message.id))).toEqual(new Set(sent.map((item) => item.messageId)));
    expect(sent).toHaveLength(2);
    expect(await messages(prospectId)).toEqual(['First', 'Same again', 'Same again']);
  });

  it('says an email whose answer was lost may have gone out: the provider gives no way to tell', async () => {
    const campaign = await world.stack.call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { apiKey: world.ws.key, body: { name: 'Inbox email' } });
    const [prospectId] = await prospectsIn(world, campaign.body.campaign.id, [{ first_name: 'Eve', email: 'eve@lost.example' }]);
    await world.stack.provider.control.addFault({ kind: 'lost_answer', method: 'POST', path: '/api/v1/emails', times: 1 });
    const failed = await send(prospectId as number, { message: 'Hello Eve', subject_line: 'Hello' });
    expect([failed.status, failed.body.error]).toEqual([502, 'The provider could not send the message']);
    expect(failed.body.details).toMatch(/; the email may have gone out \(the provider gives no way to tell\): a copy sent again may reach the prospect twice$/);
  });
});
