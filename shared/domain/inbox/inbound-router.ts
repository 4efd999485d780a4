import type { CampaignRepository } from '../campaigns/ports';
import { NOT_PAST_CAP, type SentEmail } from '../engine/action';
import type { ActionStore } from '../engine/ports';
import { ACCEPTANCE_REF, type CampaignEventKind, type CampaignEvents } from '../engine/campaign-events';
import type { SequenceStops } from '../engine/sequence-stop';
import type { Prospect } from '../leads/lead';
import { canonicalPageUrl, normalizeEmail, pageUrlIdentity } from '../leads/normalize';
import type { LeadRepository } from '../leads/ports';
import type { Clock, IdGenerator } from '../ports';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import type { SenderAccount } from '../sender-accounts/sender-account';
import type { Suppressions } from '../suppressions/suppression-service';
import type { EventPublisher } from '../webhooks/event-publisher';
import type { ConversationStore, MessageChannel, MessageKind } from './conversations';
import { type InboundEmail, type InboundEmailKind, classifyInboundEmail } from './inbound-email';
import { type InboundMessageRepository, type ProviderMessage, incomingMessageData } from './inbound-message';

/**
 * What reaches our accounts from prospects, routed (docs/engine.md, "Replies"):
 * - a network message (`message_received`) or an email (`mail_received`) is matched to a prospect
 *   of the receiving account's workspace by the conversation it continues first (the provider chat
 *   the engine wrote in; the email its In-Reply-To/References name), then by who sent it (the
 *   network member the engine looked up, the profile URL, the email address);
 * - a reply stops the prospect's sequence (REPLIED), is recorded for analytics once per provider
 *   message, joins the conversation, and goes to the users' webhooks as `incoming_message` with its
 *   campaign; with the campaign's `stop_on_company_reply`, the prospect's colleagues in the campaign
 *   stop too;
 * - an auto-reply joins the conversation and is recorded as such, nothing more; a bounce ends the
 *   sequence as BOUNCED and suppresses the address;
 * - an accepted invitation (`new_relation`) is recorded for the campaign whose invitation it was
 *   (the prospect may have moved on since) and wakes a prospect waiting at an ACCEPTED_INVITE
 *   condition of the campaign it is in.
 * Every step is idempotent, so a replayed webhook changes nothing and counts once.
 */

/** The key of an inbound link: the provider chat of one of our accounts, or a network member in a workspace. */
export const chatLink = (providerAccountId: string, chatId: string) => `CHAT#${providerAccountId}#${chatId}`;
export const memberLink = (workspaceId: number, providerId: string) => `MEMBER#${workspaceId}#${providerId}`;
/**
 * The campaign and step whose invitation one of our accounts sent a prospect last: its acceptance,
 * which the provider reports on that account, counts for them. Per account: another campaign's
 * invitation from another account is another invitation.
 */
export const invitationLink = (workspaceId: number, prospectId: number, accountId: number) => `INVITED#${workspaceId}#${prospectId}#${accountId}`;

/**
 * Where an inbound message in a chat, or from a member, leads. A chat the engine wrote in also
 * names the campaign and step that last wrote there: an answer in it answers them.
 */
export interface InboundLinkTarget {
  workspaceId: number;
  prospectId: number;
  campaignId?: number;
  nodeId?: number;
  /** A chat the engine wrote in: the A/B variant of that step's message and when it went out (written since 2026-11-28). */
  variant?: 'A' | 'B';
  sentAt?: string;
}

/** The campaign step an inbound message answers: the chat's last step, or the email it replies to (its variant and send time when recorded). */
export interface AnsweredStep {
  campaignId: number;
  nodeId: number;
  variant?: 'A' | 'B';
  sentAt?: string;
}

/**
 * A provider message a look for a manual message whose answer was lost took as that send: two
 * such looks at once (a double-click, both answers lost) find the same message first, and one
 * takes it (manual-reply.ts).
 */
export const foundMessageLink = (providerAccountId: string, messageId: string) => `FOUND#${providerAccountId}#${messageId}`;

export interface InboundLinks {
  /** Where an inbound message in this chat, or from this member, leads (written by the engine when it sends). */
  put(link: string, target: InboundLinkTarget): Promise<void>;
  /** Puts a link that does not exist yet; false when it does (someone else holds it). */
  claim(link: string, target: InboundLinkTarget): Promise<boolean>;
  /** The first of the links that exists. */
  find(links: string[]): Promise<InboundLinkTarget | undefined>;
}

/** Reads and conditional writes of a waiting action before the sender's own moves win. */
const WAKE_ATTEMPTS = 3;

/** Colleagues' sequences stopped at once on a reply with `stop_on_company_reply` (each a few writes). */
const COLLEAGUE_STOPS_AT_ONCE = 10;

export interface NewRelation {
  accountId: string;
  providerId: string | undefined;
  publicIdentifier: string | undefined;
  profileUrl: string | undefined;
}

export interface InboundRouterDeps {
  accounts: Pick<SenderAccountRepository, 'findByProviderAccountId'>;
  leads: Pick<LeadRepository, 'findIdentities' | 'getProspects' | 'getCompanies'>;
  messages: InboundMessageRepository;
  links: InboundLinks;
  /** The emails we sent, by Message-ID: the engine's (with their campaign and step) and manual ones from the inbox (without). */
  sentEmails: { findByMessageId(messageId: string): Promise<SentEmail | undefined> };
  stops: Pick<SequenceStops, 'stop'>;
  events: Pick<CampaignEvents, 'record'>;
  campaigns: Pick<CampaignRepository, 'get'>;
  /** The prospects of a company in a campaign (stop_on_company_reply). */
  colleagues: { inCampaign(campaignId: number, companyId: number): Promise<number[]> };
  actions: Pick<ActionStore, 'get' | 'replace'>;
  conversations: Pick<ConversationStore, 'append'>;
  suppressions: Pick<Suppressions, 'add'>;
  publisher: Pick<EventPublisher, 'publish'>;
  ids: IdGenerator;
  clock: Clock;
}

export type InboundOutcome =
  | { handled: true; prospectId: number; kind: InboundEmailKind | 'accepted'; eventId?: string }
  | { handled: false; reason: 'unknown_account' | 'own_message' | 'unknown_sender' };

export function createInboundRouter(deps: InboundRouterDeps) {
  const now = () => deps.clock.now().toISOString();

  /** The prospect the links or identities lead to, and what the matched link says it answers (a campaign's chat). */
  async function prospectBy(
    workspaceId: number,
    links: string[],
    identities: string[],
  ): Promise<{ prospect: Prospect; answers?: AnsweredStep } | undefined> {
    const linked = links.length ? await deps.links.find(links) : undefined;
    const mine = linked?.workspaceId === workspaceId ? linked : undefined;
    let prospectId = mine?.prospectId;
    if (prospectId === undefined && identities.length) {
      const owners = await deps.leads.findIdentities(workspaceId, 'PROSPECT', identities);
      prospectId = identities.map((identity) => owners.get(identity)).find((id) => id !== undefined);
    }
    if (prospectId === undefined) return undefined;
    const [prospect] = await deps.leads.getProspects([prospectId]);
    // A prospect of another workspace never matches.
    if (prospect?.workspaceId !== workspaceId) return undefined;
    const answers: AnsweredStep | undefined =
      mine?.campaignId !== undefined && mine.nodeId !== undefined
        ? { campaignId: mine.campaignId, nodeId: mine.nodeId, ...(mine.variant ? { variant: mine.variant } : {}), ...(mine.sentAt ? { sentAt: mine.sentAt } : {}) }
        : undefined;
    return { prospect, ...(answers ? { answers } : {}) };
  }

  async function record(
    kind: CampaignEventKind,
    prospect: Prospect,
    campaignId: number | null,
    ref: string,
    channel: MessageChannel,
    account: SenderAccount,
    nodeId: number | null,
    answered?: AnsweredStep,
  ) {
    if (campaignId === null) return;
    // The answered send's variant and time, when recorded with it: the reply is attributed to that step.
    const sent = answered?.nodeId === nodeId ? { ...(answered.variant ? { variant: answered.variant } : {}), ...(answered.sentAt ? { sentAt: answered.sentAt } : {}) } : {};
    await deps.events.record({ workspaceId: prospect.workspaceId, campaignId, prospectId: prospect.id, kind, ref, at: now(), channel, accountId: account.id, nodeId, ...sent });
  }

  /** What a prospect sent us, once matched: kept, counted, and acted on by its kind. */
  async function received(input: {
    account: SenderAccount;
    prospect: Prospect;
    kind: InboundEmailKind;
    channel: MessageChannel;
    providerMessageId: string;
    text: string;
    subject: string | null;
    sentAt: string | undefined;
    chatId: string | null;
    rfcMessageId: string | null;
    answers: AnsweredStep | undefined;
    /** For a bounce: the address the bounced email went to, when its record says. */
    bounced?: string | undefined;
  }): Promise<InboundOutcome> {
    const { account, prospect, kind, channel } = input;
    const at = now();
    const id = await deps.ids.next();
    // The campaign it answers: the one of the email it replies to, or of the chat it is written in,
    // else the one the prospect is in.
    const answeredNow = input.answers?.campaignId ?? prospect.campaignId ?? null;
    const message = await deps.messages.recordOnce({
      id,
      workspaceId: account.workspaceId,
      providerMessageId: input.providerMessageId,
      senderAccountId: account.id,
      prospectId: prospect.id,
      text: input.text,
      sentAt: input.sentAt ?? at,
      createdAt: at,
      campaignId: answeredNow,
      stopCampaignId: prospect.campaignId ?? null,
    });
    // A replay (the provider's retry, the inbound-retry queue) finishes what its first receipt
    // began, as that receipt decided it: a prospect moved into another campaign since is neither
    // stopped there nor counted as replying there (before 2026-11-28 it was: a probe).
    const replay = message.id !== id;
    const campaignId = replay && message.campaignId !== undefined ? message.campaignId : answeredNow;
    const stopIn = replay ? message.stopCampaignId : undefined;
    const stop = async (status: 'REPLIED' | 'BOUNCED', reason: string | null): Promise<Awaited<ReturnType<SequenceStops['stop']>>> => {
      // In no campaign then, in one now: nothing of this message's to stop.
      if (stopIn === null && prospect.campaignId !== undefined) return { stopped: false };
      return deps.stops.stop({ workspaceId: account.workspaceId, prospectId: prospect.id, status, reason, ...(typeof stopIn === 'number' ? { campaignId: stopIn } : {}) });
    };
    const messageKind: MessageKind = kind === 'reply' ? 'MESSAGE' : kind === 'auto_reply' ? 'AUTO_REPLY' : 'BOUNCE';
    const nodeId = input.answers?.nodeId ?? null;
    await deps.conversations.append({
      workspaceId: account.workspaceId,
      prospectId: prospect.id,
      ref: input.providerMessageId,
      channel,
      kind: messageKind,
      sentByLead: kind !== 'bounce',
      text: input.text,
      subject: input.subject,
      senderAccountId: account.id,
      campaignId,
      chatId: input.chatId,
      rfcMessageId: input.rfcMessageId,
      providerEmailId: channel === 'EMAIL' ? input.providerMessageId : null,
      sentAt: message.sentAt,
    });
    if (kind === 'auto_reply') {
      await record('AUTO_REPLY', prospect, campaignId, input.providerMessageId, channel, account, nodeId);
      return { handled: true, prospectId: prospect.id, kind };
    }
    if (kind === 'bounce') {
      // The address that bounced (the email's record says which: the prospect's may have changed
      // since); the prospect's own for an email recorded before 2026-11-28. Before, always the
      // prospect's current one, so a corrected address was suppressed in place of the bad one, and
      // the sequence ended though the next step would go to the good one.
      const bounced = input.bounced ?? prospect.email;
      if (!bounced || !prospect.email || normalizeEmail(prospect.email) === normalizeEmail(bounced)) await stop('BOUNCED', 'the email bounced (reported by the mail system)');
      if (bounced) await deps.suppressions.add(account.workspaceId, { emails: [bounced], reason: 'HARD_BOUNCE', prospectId: prospect.id, campaignId: campaignId ?? undefined });
      await record('BOUNCED', prospect, campaignId, input.providerMessageId, channel, account, nodeId);
      return { handled: true, prospectId: prospect.id, kind };
    }
    const stopped = await stop('REPLIED', null);
    await record('REPLIED', prospect, campaignId, input.providerMessageId, channel, account, nodeId, input.answers);
    const campaign = campaignId === null ? undefined : await deps.campaigns.get(account.workspaceId, campaignId);
    const current = stopped.stopped ? stopped.prospect : prospect;
    const company = current.companyId === undefined ? undefined : (await deps.leads.getCompanies([current.companyId]))[0];
    const eventId = await deps.publisher.publish(
      account.workspaceId,
      'incoming_message',
      input.providerMessageId,
      incomingMessageData(
        message,
        current,
        company?.workspaceId === account.workspaceId ? company : undefined,
        channel,
        campaign ? { id: campaign.id, name: campaign.name, status: campaign.status } : null,
      ),
      // When the reply was first received: the same on every publish of the event (a replay).
      message.createdAt,
    );
    // The colleagues after the users' webhook (a campaign may hold many of one company, and the
    // provider's webhook call has 12 s): the reply reaches the users first, and a handling cut off
    // here is repeated whole by the provider's retry, whose publish the event id dedups.
    if (campaign?.stopOnCompanyReply && prospect.companyId !== undefined) {
      const colleagues = (await deps.colleagues.inCampaign(campaign.id, prospect.companyId)).filter((colleague) => colleague !== prospect.id);
      for (let first = 0; first < colleagues.length; first += COLLEAGUE_STOPS_AT_ONCE) {
        await Promise.all(
          colleagues
            .slice(first, first + COLLEAGUE_STOPS_AT_ONCE)
            .map((colleague) => deps.stops.stop({ workspaceId: account.workspaceId, prospectId: colleague, status: 'FINISHED', reason: 'a colleague at the same company replied', campaignId: campaign.id })),
        );
      }
    }
    return { handled: true, prospectId: prospect.id, kind, eventId };
  }

  return {
    /** A network message received by one of our accounts. */
    async routeNetworkMessage(input: ProviderMessage): Promise<InboundOutcome> {
      const account = await deps.accounts.findByProviderAccountId(input.accountId);
      if (!account) return { handled: false, reason: 'unknown_account' };
      const ownId = account.ownProviderUserId ?? input.accountUserId;
      if (input.isSender || (ownId !== undefined && ownId !== null && input.sender.providerId === ownId)) return { handled: false, reason: 'own_message' };
      const canonical = input.sender.profileUrl ? canonicalPageUrl(input.sender.profileUrl) : undefined;
      const found = await prospectBy(
        account.workspaceId,
        [
          ...(input.chatId ? [chatLink(input.accountId, input.chatId)] : []),
          ...(input.sender.providerId ? [memberLink(account.workspaceId, input.sender.providerId)] : []),
        ],
        canonical ? [`url:${pageUrlIdentity(canonical)}`] : [],
      );
      if (!found) return { handled: false, reason: 'unknown_sender' };
      return received({
        account,
        prospect: found.prospect,
        kind: 'reply',
        channel: 'NETWORK',
        providerMessageId: input.messageId,
        text: input.text,
        subject: null,
        sentAt: input.timestamp,
        chatId: input.chatId ?? null,
        rfcMessageId: null,
        // The chat's campaign and step (the last the engine wrote in it), else the prospect's campaign.
        answers: found.answers,
      });
    },

    /** An email received by one of our mailboxes. */
    async routeEmail(email: InboundEmail): Promise<InboundOutcome> {
      const account = await deps.accounts.findByProviderAccountId(email.accountId);
      if (!account) return { handled: false, reason: 'unknown_account' };
      const kind = classifyInboundEmail(email);
      let sentEmail: Awaited<ReturnType<InboundRouterDeps['sentEmails']['findByMessageId']>>;
      for (const messageId of email.answers) {
        sentEmail = await deps.sentEmails.findByMessageId(messageId);
        if (sentEmail?.workspaceId === account.workspaceId) break;
        sentEmail = undefined;
      }
      // The step it answers, for an email of the engine's (a manual one from the inbox answers none:
      // it counts where the prospect is, as one matched by its address). Its send time only with its
      // variant: an email recorded before 2026-11-28 carries neither (the reply is then attributed as
      // before: to the prospect's last step).
      const answers: AnsweredStep | undefined =
        sentEmail?.campaignId !== undefined && sentEmail.nodeId !== undefined
          ? { campaignId: sentEmail.campaignId, nodeId: sentEmail.nodeId, ...(sentEmail.variant ? { variant: sentEmail.variant, sentAt: sentEmail.at } : {}) }
          : undefined;
      // A bounce comes from the mail system, not the prospect: only the thread tells whose it is.
      const identities = kind === 'bounce' || !email.from.includes('@') ? [] : [`email:${normalizeEmail(email.from)}`];
      const prospect = sentEmail
        ? (await deps.leads.getProspects([sentEmail.prospectId])).find((found) => found.workspaceId === account.workspaceId)
        : (await prospectBy(account.workspaceId, [], identities))?.prospect;
      if (!prospect) return { handled: false, reason: 'unknown_sender' };
      return received({
        account,
        prospect,
        kind,
        channel: 'EMAIL',
        providerMessageId: email.emailId,
        text: email.text,
        subject: email.subject || null,
        sentAt: email.sentAt,
        chatId: null,
        rfcMessageId: email.rfcMessageId,
        answers,
        bounced: sentEmail?.to,
      });
    },

    /** An invitation accepted (`new_relation`): recorded in the prospect's campaign, and a wait at ACCEPTED_INVITE ends now. */
    async acceptInvitation(input: NewRelation): Promise<InboundOutcome> {
      const account = await deps.accounts.findByProviderAccountId(input.accountId);
      if (!account) return { handled: false, reason: 'unknown_account' };
      const url = input.profileUrl ?? (input.publicIdentifier ? `https://www.linkedin.com/in/${input.publicIdentifier}` : undefined);
      const canonical = url ? canonicalPageUrl(url) : undefined;
      const prospect = (
        await prospectBy(account.workspaceId, input.providerId ? [memberLink(account.workspaceId, input.providerId)] : [], canonical ? [`url:${pageUrlIdentity(canonical)}`] : [])
      )?.prospect;
      if (!prospect) return { handled: false, reason: 'unknown_sender' };
      // The campaign that sent the invitation, wherever the prospect is now (moved to another
      // campaign, or out of every campaign).
      const invited = await deps.links.find([invitationLink(account.workspaceId, prospect.id, account.id)]);
      if (invited?.campaignId !== undefined) await record('INVITE_ACCEPTED', prospect, invited.campaignId, ACCEPTANCE_REF, 'NETWORK', account, invited.nodeId ?? null);
      const campaignId = prospect.campaignId ?? null;
      if (campaignId === null) return { handled: true, prospectId: prospect.id, kind: 'accepted' };
      // Without a link (an invitation sent before 2026-11-27), the current campaign's, when its
      // network steps go through this account; an invitation of an account that never wrote to the
      // prospect for a campaign (sent by hand) is no campaign's.
      if (invited?.campaignId === undefined && (await deps.actions.get(campaignId, prospect.id))?.accounts.NETWORK === account.id) {
        await record('INVITE_ACCEPTED', prospect, campaignId, ACCEPTANCE_REF, 'NETWORK', account, null);
      }
      const campaign = await deps.campaigns.get(account.workspaceId, campaignId);
      // A prospect waiting at ACCEPTED_INVITE is due now. The write is conditional on the version
      // read: if the sender moved the action meanwhile, read it again (it may still be waiting there).
      for (let attempt = 0; attempt < WAKE_ATTEMPTS; attempt += 1) {
        const action = await deps.actions.get(campaignId, prospect.id);
        const waiting = action?.nodeId === null || action?.nodeId === undefined ? undefined : campaign?.flow.nodes[String(action.nodeId)];
        if (!action || action.claim || waiting?.type !== 'ACCEPTED_INVITE') break;
        const at = now();
        if (await deps.actions.replace(action, { ...action, ...NOT_PAST_CAP, dueAt: at, version: action.version + 1, updatedAt: at })) break;
      }
      return { handled: true, prospectId: prospect.id, kind: 'accepted' };
    },
  };
}

export type InboundRouter = ReturnType<typeof createInboundRouter>;
