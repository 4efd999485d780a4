import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { createKey, signUp } from '../../support/test-stack';
import { type EngineWorld, activate, advance, campaignWith, engineWorld, prospectsIn, sandboxSent } from '../engine/helpers';
import { type Workspace, createList, importLeads, person } from '../leads/helpers';

interface Message {
  id: string;
  channel: string;
  kind: string;
  sent_by_lead: boolean;
  text: string;
  subject_line: string | null;
  sender_account_id: number | null;
  campaign_id: number | null;
  sent_at: string;
}
interface Chat {
  id: number;
  channel: string;
  prospect: Record<string, unknown>;
  sender_account: { id: number; name: string; type: string } | null;
  last_message: { text: string; sent_by_lead: boolean; sent_at: string };
}

/** The inbox: conversations newest first, one conversation across channels, manual messages through the provider. */
describe('chats', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;
  let bob: Workspace;
  // Every day, all day: a step's delay is then exactly when it is sent.
  const open = { enabled: true, start: '00:00', end: '23:59' };
  const everyDay = { sending_window: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, open])) };

  beforeAll(async () => {
    world = await engineWorld(clock);
    const user = await signUp(world.stack);
    bob = { key: (await createKey(world.stack, user)).key, workspaceId: user.workspaceId };
  });
  afterAll(async () => world?.stack.stop());

  const chats = (key: string, cursor?: string) =>
    world.stack.call<{ success: boolean; chats: Chat[]; next_cursor: string | null }>('GET', `/public/chats${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`, { apiKey: key });
  const messages = (prospectId: number, key = world.ws.key, cursor?: string) =>
    world.stack.call<{ success: boolean; messages: Message[]; next_cursor: string | null }>(
      'GET',
      `/public/chats/${prospectId}/messages/${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`,
      { apiKey: key },
    );
  const send = (prospectId: number, body: unknown, key = world.ws.key) =>
    world.stack.call<{ success: boolean; message: Message }>('POST', `/public/chats/${prospectId}/send-message/`, { apiKey: key, body });
  const now = () => clock.now().toISOString();
  const lastSent = async () => (await sandboxSent(world.stack)).at(-1);

  it('lists a workspace’s conversations newest first, 25 a page, and continues with the cursor', async () => {
    const user = await signUp(world.stack);
    const carol: Workspace = { key: (await createKey(world.stack, user)).key, workspaceId: user.workspaceId };
    await world.stack.provider.control.createAccount({ id: 'sbx-mailbox-carol', type: 'MAIL', name: 'Carol mailbox' });
    const registered = await world.stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: carol.key, body: { provider_account_id: 'sbx-mailbox-carol' } });
    expect(registered.status, registered.text).toBe(201);
    const mailbox = registered.body.account.id;
    const list = await createList(world.stack, carol, 'Inbox paging');
    const ids = (await importLeads(world.stack, carol, list.id, { leads: Array.from({ length: 27 }, (_, i) => person(500 + i, { email: `paging${i}@example.com` })) })).leads.map(
      (lead) => lead.id,
    );
    const sentAt: string[] = [];
    for (const [i, id] of ids.entries()) {
      clock.advance(60_000);
      const sent = await send(id, { message: `Hello ${i}`, subject_line: `Paging ${i}` }, carol.key);
      expect(sent.status, sent.text).toBe(201);
      sentAt.push(now());
    }
    const first = await chats(carol.key);
    expect(first.status, first.text).toBe(200);
    expect(first.body.chats.map((chat) => chat.id)).toEqual(ids.slice(2).reverse());
    expect(first.body.chats[0]).toEqual({
      id: ids[26],
      channel: 'EMAIL',
      prospect: {
        id: ids[26],
        first_name: 'First526',
        last_name: 'Last526',
        email: 'paging26@example.com',
        network_profile_url: 'https://www.linkedin.com/in/person-526',
        job_title: '',
        profile_picture_url: '',
        status: 'NEW',
        campaign_id: null,
        company: null,
      },
      sender_account: { id: mailbox, name: 'Carol mailbox', type: 'EMAIL' },
      last_message: { text: 'Hello 26', sent_by_lead: false, sent_at: sentAt[26] },
    });
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await chats(carol.key, first.body.next_cursor as string);
    expect(second.status, second.text).toBe(200);
    expect(second.body.chats.map((chat) => chat.id)).toEqual([ids[1], ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    // Nothing of carol's shows to bob, and the other way round.
    expect((await chats(bob.key)).body).toEqual({ success: true, chats: [], next_cursor: null });
    expect((await chats(world.ws.key)).body.chats.map((chat) => chat.id).filter((id) => ids.includes(id))).toEqual([]);
    const foreign = await messages(ids[0] as number, world.ws.key);
    expect([foreign.status, foreign.body]).toEqual([404, { error: 'Prospect not found' }]);
    // A cursor is the service's own: anything else is a 400, as is a messages cursor on the chat list.
    const messageCursor = Buffer.from(`MSG#${sentAt[0]}#trk_1`).toString('base64url');
    for (const cursor of ['not a cursor!', Buffer.from('garbage').toString('base64url'), messageCursor]) {
      const bad = await chats(carol.key, cursor);
      expect([bad.status, bad.body], cursor).toEqual([400, { error: 'cursor is not valid' }]);
    }
    const badMessages = await messages(ids[0] as number, carol.key, first.body.next_cursor as string);
    expect([badMessages.status, badMessages.body]).toEqual([400, { error: 'cursor is not valid' }]);
  });
});
