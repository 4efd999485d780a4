import * as v from 'valibot';
import { INBOX_ERRORS } from '../../domain/inbox/inbox-service';
import { Id, Timestamp, closed, defineRoute, idParam, unknownFieldOf } from './define';

/** Spec: Public chats (payloads are this service's; docs/engine.md, "Inbox"). */

const Channel = v.picklist(['EMAIL', 'NETWORK']);

export const ChatMessageView = v.strictObject({
  /** The message's reference in the conversation (the provider's id of it, or ours). */
  id: v.string(),
  channel: Channel,
  kind: v.picklist(['MESSAGE', 'INVITATION', 'AUTO_REPLY', 'BOUNCE']),
  sent_by_lead: v.boolean(),
  text: v.string(),
  subject_line: v.nullable(v.string()),
  sender_account_id: v.nullable(Id),
  campaign_id: v.nullable(Id),
  sent_at: Timestamp,
});

const ChatProspectView = v.strictObject({
  id: Id,
  first_name: v.string(),
  last_name: v.string(),
  email: v.string(),
  network_profile_url: v.string(),
  job_title: v.string(),
  profile_picture_url: v.string(),
  status: v.string(),
  campaign_id: v.nullable(Id),
  company: v.nullable(v.strictObject({ id: Id, name: v.string() })),
});

const ChatView = v.strictObject({
  /** The conversation's id: its prospect's. */
  id: Id,
  /** The channel of its newest message. */
  channel: Channel,
  prospect: ChatProspectView,
  sender_account: v.nullable(v.strictObject({ id: Id, name: v.string(), type: Channel })),
  last_message: v.strictObject({ text: v.string(), sent_by_lead: v.boolean(), sent_at: Timestamp }),
});

const CursorQuery = v.object({ cursor: v.optional(v.pipe(v.string(), v.maxLength(600, INBOX_ERRORS.badCursor))) });
const ChatPath = v.object({ prospect_id: idParam('Prospect not found') });

const MESSAGE_LENGTH = 'message must be at most 20000 characters';
const SUBJECT_LENGTH = 'subject_line must be at most 500 characters';
const ACCOUNT_MESSAGE = 'sender_account_id must be a positive integer';

export const SendMessageBody = closed(
  {
    // The type's default text: null is then `message is required`, as a missing one (api.md).
    message: v.pipe(v.string(), v.trim(), v.nonEmpty('message is required'), v.maxLength(20_000, MESSAGE_LENGTH)),
    subject_line: v.optional(v.nullable(v.pipe(v.string('subject_line must be a string'), v.maxLength(500, SUBJECT_LENGTH)))),
    sender_account_id: v.optional(
      v.nullable(v.pipe(v.number(ACCOUNT_MESSAGE), v.safeInteger(ACCOUNT_MESSAGE), v.minValue(1, ACCOUNT_MESSAGE))),
    ),
  },
  unknownFieldOf('a message'),
);

export const chatRoutes = {
  listChats: defineRoute('chats', {
    method: 'GET',
    path: '/public/chats',
    auth: 'apiKey',
    summary: 'The workspace’s conversations (one per prospect, all channels), newest first, 25 a page; `next_cursor` continues.',
    request: { query: CursorQuery },
    responses: { 200: v.strictObject({ success: v.literal(true), chats: v.array(ChatView), next_cursor: v.nullable(v.string()) }) },
  }),
  listChatMessages: defineRoute('chats', {
    method: 'GET',
    path: '/public/chats/{prospect_id}/messages',
    auth: 'apiKey',
    summary: 'The conversation with a prospect across channels, oldest first, 50 a page; `next_cursor` continues.',
    request: { path: ChatPath, query: CursorQuery },
    responses: { 200: v.strictObject({ success: v.literal(true), messages: v.array(ChatMessageView), next_cursor: v.nullable(v.string()) }) },
    errors: [404],
  }),
  sendChatMessage: defineRoute('chats', {
    method: 'POST',
    path: '/public/chats/{prospect_id}/send-message',
    auth: 'apiKey',
    summary:
      'Sends a manual message on the conversation’s channel through the provider (email threaded on the prospect’s last email; network message with HTML stripped) and appends it to the conversation.',
    request: { path: ChatPath, body: SendMessageBody },
    responses: { 201: v.strictObject({ success: v.literal(true), message: ChatMessageView }) },
    errors: [404, 502],
  }),
};
