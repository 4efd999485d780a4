import { notFound, validationError } from '../errors';
import { type Company, LOADING_STATUS, type Prospect, toProspectView } from '../leads/lead';
import type { LeadRepository } from '../leads/ports';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import type { SenderAccount } from '../sender-accounts/sender-account';
import { type ConversationMessage, type ConversationStore, type ConversationSummary, summaryText } from './conversations';

/**
 * The inbox (docs/engine.md, "Inbox"): the workspace's conversations, newest first, and one
 * conversation's messages across channels, oldest first. A conversation is one prospect's; its id
 * in the API is the prospect's id. Cursors are opaque (base64url of the store's own position) and
 * checked before they reach the store.
 */

export const INBOX_PAGE_SIZES = { chats: 25, messages: 50 } as const;

export const INBOX_ERRORS = {
  prospectNotFound: 'Prospect not found',
  badCursor: 'cursor is not valid',
} as const;

export type CursorKind = 'chats' | 'messages';

export interface InboxDeps {
  conversations: Pick<ConversationStore, 'list' | 'messages'>;
  leads: Pick<LeadRepository, 'getProspects' | 'getCompanies'>;
  accounts: Pick<SenderAccountRepository, 'listForWorkspace'>;
  /** Whether a decoded cursor is a position the store gives for that kind of page. */
  validCursor: (raw: string, kind: CursorKind) => boolean;
  /** The prospects that running enrichment jobs of these lists hold (shown as 'Loading…', docs/enrichment.md). */
  enriching?: (workspaceId: number, listIds: readonly number[]) => Promise<Set<number>>;
}

export interface InboxChat {
  summary: ConversationSummary;
  prospect: Prospect;
  company: Company | undefined;
  account: SenderAccount | undefined;
  /** A running enrichment job holds the prospect: its status shows as 'Loading…', as in the lists. */
  enriching?: boolean;
}

export const encodeCursor = (raw: string): string => Buffer.from(raw, 'utf8').toString('base64url');

/** The prospect as a chat shows it: who they are and where they stand (the lead lists' view, narrowed: the same status, 'Loading…' included). */
export function toChatProspectView(prospect: Prospect, company: Company | undefined, enriching = false) {
  const view = toProspectView(prospect, company);
  return {
    id: view.id,
    first_name: view.first_name,
    last_name: view.last_name,
    email: view.email,
    network_profile_url: view.network_profile_url,
    job_title: view.job_title,
    profile_picture_url: view.profile_picture_url,
    status: enriching ? LOADING_STATUS : view.status,
    campaign_id: view.campaign_id,
    company: company ? { id: company.id, name: company.name } : null,
  };
}

export const toSenderAccountRef = (account: SenderAccount | undefined) => (account ? { id: account.id, name: account.name, type: account.type } : null);

export function toChatView(chat: InboxChat) {
  const { summary } = chat;
  return {
    id: summary.prospectId,
    channel: summary.channel,
    prospect: toChatProspectView(chat.prospect, chat.company, chat.enriching === true),
    sender_account: toSenderAccountRef(chat.account),
    last_message: { text: summaryText(summary.lastMessage.text), sent_by_lead: summary.lastMessage.sentByLead, sent_at: summary.lastMessage.sentAt },
  };
}

export function toMessageView(message: ConversationMessage) {
  return {
    id: message.ref,
    channel: message.channel,
    kind: message.kind,
    sent_by_lead: message.sentByLead,
    text: message.text,
    subject_line: message.subject,
    sender_account_id: message.senderAccountId,
    campaign_id: message.campaignId,
    sent_at: message.sentAt,
  };
}

export function createInboxService(deps: InboxDeps) {
  /**
   * The store's position a cursor holds. A messages cursor also names its conversation (the
   * prospect's id before the position): one from another prospect's conversation is not valid.
   * Before 2026-11-28 it held the position alone, and such a cursor answered a silent skip to
   * that position in this conversation (a probe).
   */
  function decode(cursor: string | undefined, kind: CursorKind, prospectId?: number): string | undefined {
    if (cursor === undefined || cursor === '') return undefined;
    const text = /^[A-Za-z0-9_-]{1,700}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
    const conversation = prospectId === undefined ? '' : `${prospectId}|`;
    const raw = text.startsWith(conversation) ? text.slice(conversation.length) : '';
    if (!raw || encodeCursor(text) !== cursor || !deps.validCursor(raw, kind)) throw validationError(INBOX_ERRORS.badCursor);
    return raw;
  }

  /** The workspace's prospect; another workspace's is as unknown as a missing one. */
  async function owned(workspaceId: number, prospectId: number): Promise<Prospect> {
    const [prospect] = await deps.leads.getProspects([prospectId]);
    if (!prospect || prospect.workspaceId !== workspaceId) throw notFound(INBOX_ERRORS.prospectNotFound);
    return prospect;
  }

  return {
    owned,

    /** A page of the workspace's conversations, newest first. */
    async chats(workspaceId: number, cursor: string | undefined): Promise<{ chats: InboxChat[]; nextCursor: string | null }> {
      const page = await deps.conversations.list(workspaceId, INBOX_PAGE_SIZES.chats, decode(cursor, 'chats'));
      const prospectIds = [...new Set(page.items.map((summary) => summary.prospectId))];
      const prospects = new Map(
        (prospectIds.length ? await deps.leads.getProspects(prospectIds) : []).filter((p) => p.workspaceId === workspaceId).map((p) => [p.id, p]),
      );
      const companyIds = [...new Set([...prospects.values()].flatMap((p) => (p.companyId === undefined ? [] : [p.companyId])))];
      const companies = new Map(
        (companyIds.length ? await deps.leads.getCompanies(companyIds) : []).filter((c) => c.workspaceId === workspaceId).map((c) => [c.id, c]),
      );
      const listIds = [...new Set([...prospects.values()].flatMap((p) => p.listIds))];
      const [accountList, held] = await Promise.all([
        deps.accounts.listForWorkspace(workspaceId),
        deps.enriching && listIds.length > 0 ? deps.enriching(workspaceId, listIds) : Promise.resolve(new Set<number>()),
      ]);
      const accounts = new Map(accountList.map((account) => [account.id, account]));
      const chats = page.items.flatMap((summary): InboxChat[] => {
        const prospect = prospects.get(summary.prospectId);
        // Prospects are archived, never deleted: a conversation without one is left out rather than shown half.
        if (!prospect) return [];
        return [
          {
            summary,
            prospect,
            company: prospect.companyId === undefined ? undefined : companies.get(prospect.companyId),
            account: summary.senderAccountId === null ? undefined : accounts.get(summary.senderAccountId),
            ...(held.has(prospect.id) ? { enriching: true } : {}),
          },
        ];
      });
      return { chats, nextCursor: page.next ? encodeCursor(page.next) : null };
    },

    /** A page of one prospect's conversation, oldest first. */
    async messages(workspaceId: number, prospectId: number, cursor: string | undefined): Promise<{ messages: ConversationMessage[]; nextCursor: string | null }> {
      const raw = decode(cursor, 'messages', prospectId);
      await owned(workspaceId, prospectId);
      const page = await deps.conversations.messages(workspaceId, prospectId, INBOX_PAGE_SIZES.messages, raw);
      return { messages: page.items, nextCursor: page.next ? encodeCursor(`${prospectId}|${page.next}`) : null };
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
