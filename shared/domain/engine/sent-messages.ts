import type { CampaignStep } from '../campaigns/nodes';
import { type ConversationStore, textOfHtml } from '../inbox/conversations';
import { type InboundLinks, chatLink, invitationLink, memberLink } from '../inbox/inbound-router';
import type { SenderAccount } from '../sender-accounts/sender-account';
import type { ActionOutcome, OutreachAction } from './action';
import type { RenderedStep } from './render';
import type { SentRefs } from './steps';

export interface SentMessageDeps {
  conversations: Pick<ConversationStore, 'append'>;
  links: Pick<InboundLinks, 'put'>;
}

/**
 * What a send leaves for the conversation: the message in the prospect's conversation (the inbox
 * shows what the engine sent), and the links an answer will be matched by: the provider chat the
 * message went into, and the network member the engine looked up (docs/engine.md, "Replies").
 * An invitation without a note leaves no message.
 */
export async function keepSent(
  deps: SentMessageDeps,
  input: { action: OutreachAction; step: CampaignStep; account: SenderAccount; rendered: RenderedStep; refs: SentRefs; networkProviderId: string | undefined; at: string },
): Promise<void> {
  const { action, step, account, rendered, refs } = input;
  const target = { workspaceId: action.workspaceId, prospectId: action.prospectId };
  const writes: Promise<void>[] = [];
  // The chat also says which campaign and step wrote in it last: an answer there answers them.
  // With the message's variant and time: a reply there is attributed to this send (analytics.md).
  if (refs.chatId) {
    writes.push(deps.links.put(chatLink(account.providerAccountId, refs.chatId), { ...target, campaignId: action.campaignId, nodeId: step.id, variant: rendered.variant, sentAt: input.at }));
  }
  if (input.networkProviderId && input.networkProviderId !== action.networkProviderId) {
    writes.push(deps.links.put(memberLink(action.workspaceId, input.networkProviderId), target));
  }
  const email = step.stepType === 'EMAIL';
  const text = email ? textOfHtml(rendered.text) : rendered.text.trim();
  if (text || email) {
    writes.push(
      deps.conversations.append({
        workspaceId: action.workspaceId,
        prospectId: action.prospectId,
        ref: refs.trackingId ?? refs.messageId ?? refs.invitationId ?? `${action.stint}#${step.id}`,
        channel: email ? 'EMAIL' : 'NETWORK',
        kind: step.stepType === 'NETWORK_INVITE' ? 'INVITATION' : 'MESSAGE',
        sentByLead: false,
        text,
        subject: email ? rendered.subject : null,
        senderAccountId: account.id,
        campaignId: action.campaignId,
        chatId: refs.chatId ?? null,
        rfcMessageId: null,
        providerEmailId: null,
        sentAt: input.at,
      }),
    );
  }
  await Promise.all(writes);
}

/**
 * An invitation sent through `accountId` (or found already pending, which counts as sent; or
 * settled by the crash rule) names its campaign and step: the acceptance counts for them even
 * after the prospect moved on (docs/analytics.md).
 */
export async function keepInvitation(deps: Pick<SentMessageDeps, 'links'>, action: OutreachAction, step: CampaignStep, accountId: number): Promise<void> {
  await deps.links.put(invitationLink(action.workspaceId, action.prospectId, accountId), {
    workspaceId: action.workspaceId,
    prospectId: action.prospectId,
    campaignId: action.campaignId,
    nodeId: step.id,
  });
}

/**
 * The provider's ids of the messages this stay's earlier steps sent (from their outcome records):
 * a look for a message whose answer was lost passes them over, since one of them may have the same
 * text. Read only for such a look (the sender's retry, the crash rule).
 */
export async function messagesSentBefore(
  outcomes: { find(action: OutreachAction, nodeId: number): Promise<ActionOutcome | undefined> },
  action: OutreachAction,
): Promise<string[]> {
  const earlier = await Promise.all(action.done.map((nodeId) => outcomes.find(action, nodeId)));
  return earlier.flatMap((outcome) => (outcome?.messageId ? [outcome.messageId] : []));
}
