import { networkIdentifier } from '../connections/connection-status';
import { upstreamError, validationError } from '../errors';
import type { Prospect } from '../leads/lead';
import { normalizeEmail } from '../leads/normalize';
import type { Clock, IdGenerator } from '../ports';
import { type NetworkProvider, describeProviderFailure, isProviderFailure } from '../providers/provider';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import { type SenderAccount, isActiveAccount } from '../sender-accounts/sender-account';
import { type ConversationMessage, type ConversationStore, type MessageChannel, textOfHtml } from './conversations';
import { type InboundLinks, chatLink, foundMessageLink } from './inbound-router';
import type { Suppressions } from '../suppressions/suppression-service';
import { emailHtmlBody, headerLine, recipientName } from '../mail/email-html';
import type { SentEmail } from '../engine/action';
import { classifyFailure, isHardBounce, isLostAnswer } from '../engine/provider-answers';
import type { SequenceStops } from '../engine/sequence-stop';
import { lostAnswerLookSince } from '../engine/steps';

/**
 * A manual message to a prospect from the inbox (docs/engine.md, "Inbox"), on the conversation's
 * channel (that of its newest message), through the provider, appended to the conversation:
 * - email: through the mailbox of the conversation's last email (or `sender_account_id`, or the
 *   workspace's first active mailbox), threaded with `reply_to` naming the prospect's last email
 *   when that mailbox received it, subject "Re: <last subject>" unless given;
 * - network: HTML stripped, into the chat of the conversation's last network message when it went
 *   through the same account, else a new chat with the prospect (looked up by profile URL).
 * A conversation with no message yet goes by email when the prospect has an email and the workspace
 * an active mailbox, else on the network; `sender_account_id` decides it when given.
 */

export const REPLY_ERRORS = {
  emptyMessage: 'message is required',
  senderAccount: 'sender_account_id must be an active account of this workspace',
  noChannel:
    'No way to reach this prospect: it needs an email and the workspace an active mailbox, or a network profile URL and the workspace an active network account',
  noEmail: 'Prospect has no email address',
  noProfileUrl: 'Prospect has no network profile URL',
  noMailbox: 'No active mailbox in this workspace',
  noNetworkAccount: 'No active network account in this workspace',
  noSubject: 'subject_line is required for a first email to a prospect',
  suppressed: "The prospect's email address is on this workspace's suppression list (unsubscribed or bounced); remove it there to write to it",
  providerFailed: 'The provider could not send the message',
  /** Ends the 502's details of an email the provider refused as undeliverable. */
  bounced: 'the address is now on the suppression list (HARD_BOUNCE)',
  /** Ends the 502's details of an email whose answer was lost. */
  emailMayHaveGoneOut: 'the email may have gone out (the provider gives no way to tell): a copy sent again may reach the prospect twice',
  /** Ends the 502's details of a network message whose answer was lost, looked for and not found. */
  notSeenYet: 'the chat does not show it yet (the provider may still carry it out): look at the chat before sending it again',
  /** Ends the 502's details of a network message whose answer was lost when the look could not tell. */
  mayHaveGoneOut: 'the message may have gone out (the chat could not be read to tell): look at the chat before sending it again',
} as const;

/** Looks at most this many times past messages other looks took (manual-reply.ts, sendNetwork). */
const FOUND_CLAIM_ATTEMPTS = 3;

export interface ManualReply {
  message: string;
  subjectLine?: string | undefined;
  senderAccountId?: number | undefined;
}

export interface ManualReplyDeps {
  prospects: { owned(workspaceId: number, prospectId: number): Promise<Prospect> };
  conversations: Pick<ConversationStore, 'latestOn' | 'append' | 'ownSince'>;
  accounts: Pick<SenderAccountRepository, 'listForWorkspace'>;
  provider: Pick<NetworkProvider, 'sendEmail' | 'sendMessage' | 'sendChatMessage' | 'getProfile' | 'findSentMessage'>;
  links: Pick<InboundLinks, 'put' | 'claim'>;
  /**
   * The workspace suppression list: a manual email checks it like every email the engine sends, and
   * an address the provider refuses as undeliverable goes on it (HARD_BOUNCE), as the engine's do.
   */
  suppressions: Pick<Suppressions, 'check' | 'add'>;
  /** The record of an email sent, under its tracking id: a reply or bounce in its thread finds its prospect by it (inbound-router.ts). */
  sentEmails: { recordEmail(email: SentEmail): Promise<void> };
  /** Ends the prospect's sequence as BOUNCED when the provider refuses its address, as every hard bounce does. */
  stops: Pick<SequenceStops, 'stop'>;
  /** How long the look for a network message whose answer was lost may take: what the request has left after its provider calls. */
  lookBudgetMs: number;
  ids: IdGenerator;
  clock: Clock;
}

/** An email body: HTML as written, or plain text (escaped) with its line breaks kept. */
const emailHtml = (message: string) => emailHtmlBody(message);

/** Whether a message's text shows anything: control and invisible format characters alone (`\u0000`, a zero-width space) do not (201 before 2026-11-29). */
const readable = (text: string): boolean => text.replace(/[\p{Cc}\p{Cf}\s]/gu, '') !== '';

const replySubject = (subject: string) => (/^re:/i.test(subject) ? subject : `Re: ${subject}`);

const newest = (a: ConversationMessage | undefined, b: ConversationMessage | undefined) => (!a ? b : !b ? a : a.sentAt >= b.sentAt ? a : b);

export function createManualReplies(deps: ManualReplyDeps) {
  const active = (accounts: SenderAccount[], type: MessageChannel) => accounts.filter((account) => account.type === type && isActiveAccount(account));

  /** The account to send through: the one asked for, else the conversation's, else the first active one of the channel. */
  function accountFor(accounts: SenderAccount[], channel: MessageChannel, given: SenderAccount | undefined, last: ConversationMessage | undefined): SenderAccount {
    if (given) return given;
    const usable = active(accounts, channel);
    const previous = usable.find((account) => account.id === last?.senderAccountId);
    const chosen = previous ?? usable[0];
    if (!chosen) throw validationError(channel === 'EMAIL' ? REPLY_ERRORS.noMailbox : REPLY_ERRORS.noNetworkAccount);
    return chosen;
  }

  /** A provider failure as the 502 the caller gets; `detailsEnd` ends its details (why to look before sending again, what followed). */
  function providerError(error: unknown, detailsEnd?: string): unknown {
    if (!isProviderFailure(error)) return error;
    return upstreamError(REPLY_ERRORS.providerFailed, `${describeProviderFailure(error)}${detailsEnd ? `; ${detailsEnd}` : ''}`);
  }

  async function viaProvider<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw providerError(error);
    }
  }

  /**
   * A network send whose answer was lost (no answer in time, the connection dropped, a gateway's
   * 502/504) may have gone out: before the caller is told it failed (and sends it again), the
   * account's chats with the prospect are looked at, as the engine does for its own sends
   * (docs/engine.md, "A timeout is ambiguous"). Found, it was sent. Not found, the provider may
   * still carry it out (the look comes right after our timeout; the engine's comes a minute later),
   * so the caller is told to look before sending it again. The look is bounded by what is left of
   * the request's time: past it, the caller is told it may have gone out.
   */
  async function sendNetwork(
    target: { workspaceId: number; prospectId: number },
    account: SenderAccount,
    text: string,
    send: () => Promise<{ chatId: string | null; messageId: string | null }>,
    attendee: () => Promise<string>,
  ): Promise<{ chatId: string | null; messageId: string | null; sentAt?: string }> {
    const startedAt = deps.clock.now().toISOString();
    const since = lostAnswerLookSince(startedAt);
    try {
      return await send();
    } catch (error) {
      if (!isLostAnswer(error)) throw providerError(error);
      const look = async () => {
        // Every message of ours in the window (and a little before it: the provider stamps with its
        // own clock) is another send, never this one: a message of the same text a moment earlier
        // would otherwise be taken for it.
        const exclude = (await deps.conversations.ownSince(target.workspaceId, target.prospectId, 'NETWORK', lostAnswerLookSince(since))).map((message) => message.ref);
        const attendeeProviderId = await attendee();
        for (let attempt = 0; attempt < FOUND_CLAIM_ATTEMPTS; attempt += 1) {
          const found = await deps.provider.findSentMessage({ accountId: account.providerAccountId, attendeeProviderId, text, since, exclude });
          if (!found || exclude.includes(found.messageId)) return { found: undefined };
          // Two such looks at once (a double-click, both answers lost) find the same message: one
          // takes it, the other looks past it for its own. Dated when the send began (it went out
          // then), so a reply that came meanwhile stays after it.
          if (await deps.links.claim(foundMessageLink(account.providerAccountId, found.messageId), target)) return { found: { ...found, sentAt: startedAt } };
          exclude.push(found.messageId);
        }
        return undefined;
      };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const outOfTime = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), deps.lookBudgetMs);
      });
      const looked = await Promise.race([look().catch(() => undefined), outOfTime]).finally(() => clearTimeout(timer));
      if (!looked) throw providerError(error, REPLY_ERRORS.mayHaveGoneOut);
      if (!looked.found) throw providerError(error, REPLY_ERRORS.notSeenYet);
      return looked.found;
    }
  }

  return {
    async send(workspaceId: number, prospectId: number, input: ManualReply): Promise<ConversationMessage> {
      const prospect = await deps.prospects.owned(workspaceId, prospectId);
      const [lastEmail, lastNetwork, accounts] = await Promise.all([
        deps.conversations.latestOn(workspaceId, prospectId, 'EMAIL'),
        deps.conversations.latestOn(workspaceId, prospectId, 'NETWORK'),
        deps.accounts.listForWorkspace(workspaceId),
      ]);
      let given: SenderAccount | undefined;
      if (input.senderAccountId !== undefined) {
        given = accounts.find((account) => account.id === input.senderAccountId);
        if (!given || !isActiveAccount(given)) throw validationError(REPLY_ERRORS.senderAccount);
      }
      const channel: MessageChannel | undefined =
        newest(lastEmail, lastNetwork)?.channel ??
        given?.type ??
        (prospect.email && active(accounts, 'EMAIL').length ? 'EMAIL' : prospect.networkProfileUrl && active(accounts, 'NETWORK').length ? 'NETWORK' : undefined);
      if (!channel) throw validationError(REPLY_ERRORS.noChannel);
      if (given && given.type !== channel) throw validationError(`sender_account_id must be an account of the conversation's channel (${channel})`);
      const target = { workspaceId, prospectId };
      const base = { ...target, kind: 'MESSAGE' as const, sentByLead: false, campaignId: null, rfcMessageId: null, providerEmailId: null };

      if (channel === 'EMAIL') {
        if (!prospect.email) throw validationError(REPLY_ERRORS.noEmail);
        // Read strongly: no sequence stop protects a manual email, so an address suppressed a
        // moment ago (an unsubscribe, a POST /suppressions) must be seen.
        if (await deps.suppressions.check(workspaceId, prospect.email, { consistent: true })) throw validationError(REPLY_ERRORS.suppressed);
        // What goes out, and what the conversation shows of it (the text of that body: a plain-text
        // message's `<https://...>` or `2<3` kept, as sent).
        const htmlBody = emailHtml(input.message.trim());
        const text = textOfHtml(htmlBody);
        if (!readable(text)) throw validationError(REPLY_ERRORS.emptyMessage);
        // One header line: a line break in a subject is a header of its own to a mail program (`\r\nBcc: ...`).
        const subject = headerLine(input.subjectLine ?? '') || (lastEmail?.subject ? replySubject(headerLine(lastEmail.subject)) : '');
        if (!subject) throw validationError(REPLY_ERRORS.noSubject);
        const account = accountFor(accounts, 'EMAIL', given, lastEmail);
        // The provider threads a reply on an email the same mailbox holds: the prospect's last one to it.
        const theirs = await deps.conversations.latestOn(workspaceId, prospectId, 'EMAIL', true);
        const replyTo = theirs?.providerEmailId && theirs.senderAccountId === account.id ? theirs.providerEmailId : undefined;
        const name = recipientName(prospect);
        const to = prospect.email;
        let sent: { trackingId: string };
        try {
          sent = await deps.provider.sendEmail({
            accountId: account.providerAccountId,
            to: { email: to, ...(name ? { name } : {}) },
            subject,
            htmlBody,
            ...(replyTo ? { replyTo } : {}),
          });
        } catch (error) {
          // Refused as undeliverable: a hard bounce at the send, which suppresses the address and ends
          // the sequence as BOUNCED, as the engine's do (docs/engine.md, "Provider answers").
          if (isHardBounce(error)) {
            await deps.suppressions.add(workspaceId, { emails: [to], reason: 'HARD_BOUNCE', prospectId });
            await deps.stops.stop({ workspaceId, prospectId, status: 'BOUNCED', reason: classifyFailure(error).reason });
            throw providerError(error, REPLY_ERRORS.bounced);
          }
          throw providerError(error, isLostAnswer(error) ? REPLY_ERRORS.emailMayHaveGoneOut : undefined);
        }
        const sentAt = deps.clock.now().toISOString();
        const message: ConversationMessage = {
          ...base,
          ref: sent.trackingId,
          channel,
          text,
          subject,
          senderAccountId: account.id,
          chatId: null,
          sentAt,
        };
        // Recorded like the engine's emails (without a campaign or step): a reply from another
        // address, or a bounce, in this email's thread is matched by it (before 2026-11-29 a bounce
        // of a manual email was not matched at all, and its address was not suppressed).
        await Promise.all([
          deps.sentEmails.recordEmail({ trackingId: sent.trackingId, workspaceId, prospectId, accountId: account.id, at: sentAt, messageId: null, to: normalizeEmail(to) }),
          deps.conversations.append(message),
        ]);
        return message;
      }

      const text = textOfHtml(input.message);
      if (!readable(text)) throw validationError(REPLY_ERRORS.emptyMessage);
      const account = accountFor(accounts, 'NETWORK', given, lastNetwork);
      const chatId = lastNetwork?.chatId && lastNetwork.senderAccountId === account.id ? lastNetwork.chatId : null;
      const identifier = prospect.networkProfileUrl ? networkIdentifier(prospect.networkProfileUrl) : undefined;
      const attendeeOf = async () => {
        if (!identifier) throw validationError(REPLY_ERRORS.noProfileUrl);
        return (await deps.provider.getProfile({ accountId: account.providerAccountId, identifier })).providerId;
      };
      let sent: { chatId: string | null; messageId: string | null; sentAt?: string };
      if (chatId) {
        sent = await sendNetwork(target, account, text, async () => ({ chatId, ...(await deps.provider.sendChatMessage({ accountId: account.providerAccountId, chatId, text })) }), attendeeOf);
      } else {
        const attendeeProviderId = await viaProvider(attendeeOf);
        sent = await sendNetwork(target, account, text, () => deps.provider.sendMessage({ accountId: account.providerAccountId, attendeeProviderId, text }), async () => attendeeProviderId);
      }
      // An answer in a new chat (or one a lost answer's look found) finds its prospect by the chat, as for the engine's messages.
      if (sent.chatId && sent.chatId !== chatId) await deps.links.put(chatLink(account.providerAccountId, sent.chatId), target);
      const message: ConversationMessage = {
        ...base,
        ref: sent.messageId ?? `manual-${await deps.ids.next()}`,
        channel,
        text,
        subject: null,
        senderAccountId: account.id,
        chatId: sent.chatId,
        sentAt: sent.sentAt ?? deps.clock.now().toISOString(),
      };
      await deps.conversations.append(message);
      return message;
    },
  };
}

export type ManualReplies = ReturnType<typeof createManualReplies>;
