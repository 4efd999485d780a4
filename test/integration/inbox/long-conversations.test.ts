import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../../shared/db/conversation-repository';
import { LAMBDA_RESULT_MAX_BYTES } from '../../../shared/http/answer-size';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsStack, person } from '../leads/helpers';
import { inLambdaResult } from '../../support/formats';


/**
 * A conversation's page holds up to 50 messages, as many as fit DynamoDB's 1 MB query page. Text
 * that JSON escapes grows sevenfold in the answer (a control character is `\u0001` in the body,
 * `\\u0001` in the function's result), so such a page passed Lambda's 6 MB answer (a 502): it now
 * ends early, and its cursor goes on after the last message it holds.
 */
describe('a conversation of long replies', () => {
  let stack: TestStack;
  let alice: Workspace;
  let prospectId: number;

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
    const list = await createList(stack, alice, 'Talkative');
    prospectId = (await importLeads(stack, alice, list.id, { leads: [person(1)] })).leads[0]?.id as number;
    // Seeded as the router stores replies: 40 replies of 40,000 control characters. Stored, each is
    // 40 KB (so DynamoDB's 1 MB query page holds 25); in the answer each takes 280 KB (`\u0001`,
    // escaped again), so 25 would make 7 MB.
    const conversations = new DynamoConversationStore(stack.db, stack.tableName);
    for (let n = 0; n < 40; n += 1) {
      await conversations.append({
        workspaceId: alice.workspaceId,
        prospectId,
        ref: `reply-${String(n).padStart(2, '0')}`,
        channel: 'EMAIL',
        kind: 'MESSAGE',
        sentByLead: true,
        text: `${n}${'\u0001'.repeat(40_000)}`,
        subject: 'Re: hello',
        senderAccountId: null,
        campaignId: null,
        chatId: null,
        rfcMessageId: null,
        providerEmailId: null,
        sentAt: new Date(Date.UTC(2026, 10, 27, 9, n)).toISOString(),
      });
    }
  }, 60_000);
  afterAll(async () => stack?.stop());

  it('is paged under what one answer can hold, every message once, in order', async () => {
    const seen: string[][] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const query: string = cursor ? `?cursor=${cursor}` : '';
      const page = await stack.call<{ messages: { id: string }[]; next_cursor: string | null }>('GET', `/public/chats/${prospectId}/messages${query}`, { apiKey: alice.key });
      expect(page.status, page.text.slice(0, 200)).toBe(200);
      expect(inLambdaResult(page.text)).toBeLessThan(LAMBDA_RESULT_MAX_BYTES);
      seen.push(page.body.messages.map((message) => message.id));
      cursor = page.body.next_cursor;
    }
    expect(seen.map((page) => page.length)).toEqual([17, 17, 6]);
    expect(seen.flat()).toEqual(Array.from({ length: 40 }, (_, n) => `reply-${String(n).padStart(2, '0')}`));
  });

  it('ends with a page that holds the last message exactly: no cursor to an empty page', async () => {
    const conversations = new DynamoConversationStore(stack.db, stack.tableName);
    // 40 messages, 8 a page (well under what one answer holds): five pages, the fifth with no cursor.
    const pages: { refs: string[]; next: string | undefined }[] = [];
    let cursor: string | undefined;
    do {
      const page = await conversations.messages(alice.workspaceId, prospectId, 8, cursor);
      pages.push({ refs: page.items.map((message) => message.ref), next: page.next });
      cursor = page.next;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages.map((page) => [page.refs.length, page.next?.split('#').at(-1)])).toEqual([
      [8, 'reply-07'],
      [8, 'reply-15'],
      [8, 'reply-23'],
      [8, 'reply-31'],
      [8, undefined],
    ]);
    // The workspace's list of conversations: one, on a page of one, with nothing after it.
    expect(await conversations.list(alice.workspaceId, 1)).toEqual({ items: [expect.objectContaining({ prospectId })] });
  });

  it('refuses a cursor of another conversation: 400, not a skip to its position there', async () => {
    const list = await createList(stack, alice, 'Another talker');
    const other = (await importLeads(stack, alice, list.id, { leads: [person(2)] })).leads[0]?.id as number;
    const page = (cursor = '', id = prospectId) =>
      stack.call<{ messages: { id: string }[]; next_cursor: string | null }>('GET', `/public/chats/${id}/messages${cursor ? `?cursor=${cursor}` : ''}`, { apiKey: alice.key });
    const cursor = (await page()).body.next_cursor as string;
    const elsewhere = await page(cursor, other);
    expect([elsewhere.status, elsewhere.body]).toEqual([400, { error: 'cursor is not valid' }]);
    // On its own conversation it is the second page.
    expect((await page(cursor)).body.messages[0]?.id).toBe('reply-17');
  });
});
