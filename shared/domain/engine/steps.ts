import type { CampaignStep } from '../campaigns/nodes';
import { publicIdOf } from '../inbox/reply-router';
import type { Prospect } from '../leads/lead';
import type { NetworkProvider } from '../providers/provider';
import type { SenderAccount } from '../sender-accounts/sender-account';
import type { SendKind } from './action';
import type { RenderedStep, Variant } from './render';

/**
 * The provider calls of one step. A network step first reads the prospect's profile through the
 * sending account (network distance is per account): an invitation to a first-degree connection
 * is skipped, one already pending counts as sent, and a message only goes to a first-degree
 * connection. Errors are returned, not thrown, for the sender to sort (provider-answers.ts).
 */

export interface SentRefs {
  trackingId?: string;
  invitationId?: string;
  chatId?: string;
  messageId?: string;
}

export type SendResult = { variant: Variant; networkProviderId?: string } & (
  | { sent: { refs: SentRefs; note?: string } }
  | { skipped: string }
  | { error: unknown }
);

export interface StepInput {
  step: CampaignStep;
  kind: SendKind;
  account: SenderAccount;
  prospect: Prospect;
  rendered: RenderedStep;
}

export async function performStep(provider: NetworkProvider, input: StepInput): Promise<SendResult> {
  const { account, prospect, rendered } = input;
  const variant = rendered.variant;
  try {
    if (input.kind === 'EMAIL') {
      const name = `${prospect.firstName} ${prospect.lastName}`.trim();
      const { trackingId } = await provider.sendEmail({
        accountId: account.providerAccountId,
        to: { email: prospect.email as string, ...(name ? { name } : {}) },
        subject: rendered.subject,
        htmlBody: rendered.text,
      });
      return { variant, sent: { refs: { trackingId } } };
    }
    const identifier = publicIdOf(prospect.networkProfileUrl);
    if (!identifier) return { variant, skipped: 'no network profile URL' };
    const profile = await provider.getProfile({ accountId: account.providerAccountId, identifier });
    const networkProviderId = profile.providerId;
    if (input.kind === 'INVITE') {
      if (profile.networkDistance === 'FIRST_DEGREE') return { variant, networkProviderId, skipped: 'already connected' };
      if (profile.invitationPending) return { variant, networkProviderId, sent: { refs: {}, note: 'an invitation was already pending' } };
      const text = rendered.text.trim();
      const { invitationId } = await provider.sendInvitation({ accountId: account.providerAccountId, providerId: networkProviderId, ...(text ? { message: text } : {}) });
      return { variant, networkProviderId, sent: { refs: { invitationId } } };
    }
    if (profile.networkDistance !== 'FIRST_DEGREE') return { variant, networkProviderId, skipped: 'not a first-degree connection' };
    const { chatId, messageId } = await provider.sendMessage({ accountId: account.providerAccountId, attendeeProviderId: networkProviderId, text: rendered.text });
    return { variant, networkProviderId, sent: { refs: { ...(chatId ? { chatId } : {}), ...(messageId ? { messageId } : {}) } } };
  } catch (error) {
    return { variant, error };
  }
}
