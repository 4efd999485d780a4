import { hasValidEmail } from './conditions';
import type { CampaignStep } from '../campaigns/nodes';
import { publicIdOf } from '../inbox/inbound-message';
import type { Prospect } from '../leads/lead';
import { recipientName } from '../mail/email-html';
import { type NetworkProvider, ProviderFailure, describeProviderFailure, isProviderFailure } from '../providers/provider';
import type { SenderAccount } from '../sender-accounts/sender-account';
import type { OutreachAction, SendKind } from './action';
import { ALREADY_PERFORMED, classifyFailure } from './provider-answers';
import type { RenderedStep, Variant } from './render';

/**
 * The provider calls of one step. A network step first reads the prospect's profile through the
 * sending account (network distance is per account): an invitation to a first-degree connection
 * is skipped, one already pending counts as sent, and a message only goes to a first-degree
 * connection. Errors are returned, not thrown, for the sender to sort (provider-answers.ts).
 */


/** The reason an invitation to a first-degree connection is skipped (a later ACCEPTED_INVITE is YES). */
export const ALREADY_CONNECTED = 'already connected';

/**
 * What a skipped step's reason (the profile's first degree, or the provider's "already performed")
 * tells the action: an invitation that found the prospect connected makes a later ACCEPTED_INVITE
 * YES at once, and the account it went through becomes the prospect's network account, as a sent
 * invitation's does: the connection is that account's, so a later message goes (or waits) there.
 * Before 2026-11-28 it was not kept, and a message spread to another account found no connection
 * and was skipped (probe). The sender and the crash rule (settling a recorded skip) read it the same way.
 */
export function connectedBySkip(
  kind: SendKind,
  reason: string | null,
  accounts: OutreachAction['accounts'],
  throughAccountId: number,
): { alreadyConnected?: true; accounts?: OutreachAction['accounts'] } {
  return kind === 'INVITE' && (reason === ALREADY_CONNECTED || reason === ALREADY_PERFORMED)
    ? { alreadyConnected: true, accounts: { ...accounts, NETWORK: throughAccountId } }
    : {};
}
export interface SentRefs {
  trackingId?: string;
  invitationId?: string;
  chatId?: string;
  messageId?: string;
}

export type SendResult = { variant: Variant; networkProviderId?: string } & (
  /**
   * `note`: what was counted as sent without sending it (an invitation already pending): the
   * outcome's reason, and nothing is kept for the conversation. `found`: an earlier attempt whose
   * answer was lost went out (seen at the provider), through `through`, with `text`: recorded and
   * kept as that send.
   */
  | { sent: { refs: SentRefs; note?: string; found?: FoundSend } }
  | { skipped: string }
  /** `sendCalled`: the error came from the call that sends a network message or invitation (it may have gone out). */
  | { error: unknown; sendCalled?: true }
  /** The look for a send whose answer was lost (`lost`) found that it did not go out. */
  | { lostNotSent: true }
);

/** A send an earlier attempt made though its answer was lost, as the provider shows it. */
export interface FoundSend {
  reason: string;
  through: SenderAccount;
  text: string;
  /** When it went out, as far as the engine knows: the claim of the attempt whose answer was lost. */
  at: string;
  /** An invitation found accepted already (the prospect a connection of that account). */
  accepted?: true;
}

export interface StepInput {
  step: CampaignStep;
  kind: SendKind;
  account: SenderAccount;
  prospect: Prospect;
  rendered: RenderedStep;
  /** The prospect's unsubscribe URL, for an email step with `add_unsubscribe`. */
  unsubscribeUrl?: string;
  /** An earlier attempt got no answer (OutreachAction.answerLost), through `through` (the account of this call: lost-answer-look.ts): looked for, and nothing is sent. */
  lost?: {
    at: string;
    text: string;
    variant?: Variant | undefined;
    through: SenderAccount;
    /** The provider's ids of messages earlier steps of this stay sent (one of the same text is not this one). */
    exclude?: readonly string[];
  };
}

/** The outcome's reason of a network message found in the chat after its send's answer was lost. */
export const FOUND_AFTER_LOST_ANSWER = 'found sent in the chat after the provider did not answer';

/** The outcome's reason of an invitation found (pending, or accepted) after its send's answer was lost. */
export const INVITATION_FOUND_AFTER_LOST_ANSWER = 'found at the provider (pending or accepted) after it did not answer';

/**
 * Where the look for a message whose answer was lost starts: its claim, less two minutes, since the
 * provider stamps messages with its own clock (a message stamped a little before our claim is ours).
 */
export const lostAnswerLookSince = (claimedAt: string): string => new Date(Date.parse(claimedAt) - 120_000).toISOString();

/** The unsubscribe link appended to an email body (the URL is ours: base64url token, no markup to escape but `&`). */
export const unsubscribeFooter = (url: string): string =>
  `<p style="font-size:12px;color:#777">If you would rather not hear from us, <a href="${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">unsubscribe</a>.</p>`;

/**
 * The unsubscribe header of an email. The current provider accepts `Unscribe-List` and sends it on
 * as `List-Unsubscribe` (providers.md 1.6); it refuses `List-Unsubscribe-Post`, so the RFC 8058
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` is added here for a provider that accepts it.
 */
export const unsubscribeHeaders = (url: string): { name: string; value: string }[] => [{ name: 'Unscribe-List', value: `<${url}>` }];


/** Why this step cannot go to this prospect at all (skipped, recorded), or undefined. */
export function whyNotSendable(kind: SendKind, prospect: Prospect): string | undefined {
  if (kind === 'EMAIL') return hasValidEmail(prospect) ? undefined : 'no valid email address';
  return prospect.networkProfileUrl ? undefined : 'no network profile URL';
}

/**
 * What a failed look for a send whose answer was lost means for the action: an account problem of
 * the account it looks through is one (the look waits for it); anything else is retried, since a
 * provider that cannot tell now says nothing about the prospect (its "not found" ends no sequence).
 */
function lookFailure(error: unknown): unknown {
  if (classifyFailure(error).kind === 'account') return error;
  const reason = isProviderFailure(error) ? describeProviderFailure(error) : String(error);
  return new ProviderFailure('network', `could not look for a send whose answer was lost: ${reason}`);
}

export async function performStep(provider: NetworkProvider, input: StepInput): Promise<SendResult> {
  const { account, prospect, rendered } = input;
  const variant = rendered.variant;
  try {
    if (input.kind === 'EMAIL') {
      const name = recipientName(prospect);
      const { trackingId } = await provider.sendEmail({
        accountId: account.providerAccountId,
        to: { email: prospect.email as string, ...(name ? { name } : {}) },
        subject: rendered.subject,
        htmlBody: input.unsubscribeUrl ? `${rendered.text}${unsubscribeFooter(input.unsubscribeUrl)}` : rendered.text,
        ...(input.unsubscribeUrl ? { customHeaders: unsubscribeHeaders(input.unsubscribeUrl) } : {}),
      });
      return { variant, sent: { refs: { trackingId } } };
    }
    const identifier = publicIdOf(prospect.networkProfileUrl);
    if (!identifier) return { variant, skipped: 'no network profile URL' };
    const { lost } = input;
    // In a look for a send whose answer was lost the profile read is part of the look: its failure
    // (a 404 included) is retried, never ends the sequence of a prospect the send may have reached.
    const profile = await provider.getProfile({ accountId: account.providerAccountId, identifier }).catch((error: unknown) => {
      if (lost) return { lookFailed: lookFailure(error) } as const;
      throw error;
    });
    if ('lookFailed' in profile) return { variant, error: profile.lookFailed };
    const networkProviderId = profile.providerId;
    if (input.kind === 'INVITE') {
      if (lost) {
        // An earlier invitation may have gone out without its answer: the account that sent it
        // (the one the look goes through) shows it pending, or the prospect connected (accepted meanwhile).
        if (profile.invitationPending || profile.networkDistance === 'FIRST_DEGREE') {
          const accepted = profile.networkDistance === 'FIRST_DEGREE' ? { accepted: true as const } : {};
          const found = { reason: INVITATION_FOUND_AFTER_LOST_ANSWER, through: lost.through, text: lost.text, at: lost.at, ...accepted };
          return { variant: lost.variant ?? variant, networkProviderId, sent: { refs: {}, found } };
        }
        return { variant, networkProviderId, lostNotSent: true };
      }
      if (profile.networkDistance === 'FIRST_DEGREE') return { variant, networkProviderId, skipped: ALREADY_CONNECTED };
      if (profile.invitationPending) return { variant, networkProviderId, sent: { refs: {}, note: 'an invitation was already pending' } };
      const text = rendered.text.trim();
      try {
        const { invitationId } = await provider.sendInvitation({ accountId: account.providerAccountId, providerId: networkProviderId, ...(text ? { message: text } : {}) });
        return { variant, networkProviderId, sent: { refs: { invitationId } } };
      } catch (error) {
        return { variant, networkProviderId, error, sendCalled: true };
      }
    }
    if (lost) {
      // An earlier attempt may have gone out without its answer: sent again only if it did not.
      try {
        const found = await provider.findSentMessage({
          accountId: lost.through.providerAccountId,
          attendeeProviderId: networkProviderId,
          text: lost.text,
          since: lostAnswerLookSince(lost.at),
          ...(lost.exclude ? { exclude: lost.exclude } : {}),
        });
        if (found) return { variant: lost.variant ?? variant, networkProviderId, sent: { refs: found, found: { reason: FOUND_AFTER_LOST_ANSWER, through: lost.through, text: lost.text, at: lost.at } } };
        return { variant, networkProviderId, lostNotSent: true };
      } catch (error) {
        return { variant, networkProviderId, error: lookFailure(error) };
      }
    }
    if (profile.networkDistance !== 'FIRST_DEGREE') return { variant, networkProviderId, skipped: 'not a first-degree connection' };
    try {
      const { chatId, messageId } = await provider.sendMessage({ accountId: account.providerAccountId, attendeeProviderId: networkProviderId, text: rendered.text });
      return { variant, networkProviderId, sent: { refs: { ...(chatId ? { chatId } : {}), ...(messageId ? { messageId } : {}) } } };
    } catch (error) {
      return { variant, networkProviderId, error, sendCalled: true };
    }
  } catch (error) {
    return { variant, error };
  }
}
