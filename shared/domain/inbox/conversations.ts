import { decodeHTML } from 'entities';
import { firstUnits } from '../validation';

/**
 * A workspace's conversations: one per prospect, across channels (docs/engine.md, "Inbox"). Every
 * message we send (the engine's sends, manual replies) and every message a prospect sends us is one
 * append-only record; each conversation keeps its newest message as its summary, which orders the
 * inbox.
 */

export type MessageChannel = 'EMAIL' | 'NETWORK';
/** A message as such; an auto-reply or a bounce is kept in the conversation but is not a reply. */
export type MessageKind = 'MESSAGE' | 'INVITATION' | 'AUTO_REPLY' | 'BOUNCE';

export interface ConversationMessage {
  workspaceId: number;
  prospectId: number;
  /** Unique in the conversation and stable for a repeated write (the provider's id of it, or ours). */
  ref: string;
  channel: MessageChannel;
  kind: MessageKind;
  sentByLead: boolean;
  text: string;
  subject: string | null;
  /** Our sender account it went through or arrived at. */
  senderAccountId: number | null;
  campaignId: number | null;
  /** Network: the provider's chat. */
  chatId: string | null;
  /** Email: its RFC Message-ID when known (a manual reply threads on it). */
  rfcMessageId: string | null;
  /** Email: the provider's id of the email (what its `reply_to` field names). */
  providerEmailId: string | null;
  sentAt: string;
}

export interface ConversationSummary {
  workspaceId: number;
  prospectId: number;
  channel: MessageChannel;
  senderAccountId: number | null;
  lastMessage: { text: string; sentByLead: boolean; sentAt: string };
}

export interface ConversationPage<T> {
  items: T[];
  /** Where the next page starts; undefined at the end. */
  next?: string;
}

export interface ConversationStore {
  /** Appends a message (a repeat of the same ref is the same record) and moves the conversation's summary to it if it is the newest. */
  append(message: ConversationMessage): Promise<void>;
  /** The workspace's conversations, newest first. */
  list(workspaceId: number, limit: number, cursor?: string): Promise<ConversationPage<ConversationSummary>>;
  /** One prospect's messages, oldest first. */
  messages(workspaceId: number, prospectId: number, limit: number, cursor?: string): Promise<ConversationPage<ConversationMessage>>;
  /** The newest message of the prospect on a channel (of the prospect's only, with `sentByLead`), auto-replies and bounces left out, if any (what a manual reply builds on). */
  latestOn(workspaceId: number, prospectId: number, channel: MessageChannel, sentByLead?: boolean): Promise<ConversationMessage | undefined>;
  /** The messages sent to the prospect on a channel (not the prospect's) since a time, oldest first. */
  ownSince(workspaceId: number, prospectId: number, channel: MessageChannel, since: string): Promise<ConversationMessage[]>;
}

/** Long texts are kept whole in the message; the summary shows their first 500 characters. */
const SUMMARY_TEXT_LENGTH = 500;

/**
 * The start of a message a conversation's summary shows: 500 UTF-16 units, one fewer where the
 * cut would fall inside a surrogate pair (an emoji), whose half is no Unicode text: strict JSON
 * readers refused the whole inbox page (a probe, 2026-11-29). Summaries stored before are read
 * through it too.
 */
export function summaryText(text: string): string {
  return firstUnits(text, SUMMARY_TEXT_LENGTH);
}

/**
 * Plain text of an email body (a conversation shows text, never HTML): what a reader sees, so the
 * contents of scripts, styles, the head and comments go with their tags.
 */
export function textOfHtml(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?(-->|$)/g, '')
    .replace(/<(script|style|head|title|template)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi, '')
    .replace(/<(br|\/p|\/div|\/li)\s*\/?>/gi, '\n')
    // Only what HTML reads as a tag: `<` then a name (or `/`, `!`, `?`). A `<` before anything else
    // is text, as a browser shows it: `budget < 5k, timeline > 3 months`, `<anna@example.com>` or
    // `<https://example.com>` in a typed message lost everything between their brackets before
    // 2026-11-29 (a probe).
    .replace(/<(?:\/?[A-Za-z][A-Za-z0-9-]*(?:[\s/][^>]*)?|[!?][^>]*)>/g, '')
    .replace(/&(?:nbsp|#160|#xa0);/gi, ' ');
  // Every character reference, named or numeric (`&eacute;`, `&#233;`, `&euro;`), as a browser
  // reads it, in one pass (`&amp;lt;` is `&lt;`); before 2026-11-29 only five were, and
  // `Caf&eacute;` reached the prospect as written.
  return decodeHTML(text)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
