import { type Company, type Prospect, toCompanyView } from '../leads/lead';
import type { IncomingMessageData } from '../webhooks/events';

/** A `message_received` webhook from the provider, reduced to what routing needs. */
export interface ProviderMessage {
  /** The provider account that received (or sent) the message. */
  accountId: string;
  /** The provider's message id: the idempotency key of the whole routing. */
  messageId: string;
  text: string;
  /** When the provider saw the message (ISO); undefined when it gave none. */
  timestamp?: string | undefined;
  /** The provider's own marker of a message the account sent itself. */
  isSender: boolean;
  /** The connected user's id at the provider, as the webhook reports it (`account_info.user_id`). */
  accountUserId?: string | undefined;
  sender: { providerId?: string | undefined; profileUrl?: string | undefined };
  /** The provider's chat it was posted in. */
  chatId?: string | undefined;
}

/** One inbound message as we keep it: our id, stable for every copy of the provider's webhook. */
export interface InboundMessage {
  id: number;
  workspaceId: number;
  providerMessageId: string;
  senderAccountId: number;
  prospectId: number;
  text: string;
  sentAt: string;
  createdAt: string;
  /**
   * As its first receipt decided them (since 2026-11-28; absent on older messages): the campaign
   * it answers, and the one the prospect was in, whose sequence it stopped. A replay of the
   * provider's webhook acts on these, not on where the prospect is by then.
   */
  campaignId?: number | null;
  stopCampaignId?: number | null;
}

export interface InboundMessageRepository {
  /** Records the message unless one with its provider id exists in the workspace; the stored one either way. */
  recordOnce(message: InboundMessage): Promise<InboundMessage>;
}

/** The last path segment of a canonical profile URL (`https://www.linkedin.com/in/alex-doe` -> `alex-doe`). */
export function publicIdOf(profileUrl: string | undefined): string {
  if (!profileUrl) return '';
  const match = /\/in\/([^/]+)$/.exec(profileUrl);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

/** The `incoming_message` event data (seleqt-api.md §2.2, network naming), with the campaign the reply answers. */
export function incomingMessageData(
  message: InboundMessage,
  prospect: Prospect,
  company: Company | undefined,
  channel: 'NETWORK' | 'EMAIL',
  campaign: { id: number; name: string; status: string } | null,
): IncomingMessageData {
  return {
    message: {
      id: message.id,
      message_id: message.providerMessageId,
      message: message.text,
      sent_by_lead: true,
      channel,
      sent_at: message.sentAt,
      created_at: message.createdAt,
      updated_at: message.createdAt,
      campaign,
      lead: {
        id: prospect.id,
        first_name: prospect.firstName,
        last_name: prospect.lastName,
        profile_picture_url: prospect.profilePictureUrl ?? '',
        network_profile_url: prospect.networkProfileUrl ?? '',
        network_public_id: publicIdOf(prospect.networkProfileUrl),
        job_title: prospect.jobTitle ?? '',
        industry: prospect.industry ?? '',
        headline: prospect.headline ?? '',
        email: prospect.email ?? '',
        phone_number: prospect.phoneNumber ?? '',
        location: prospect.location ?? '',
        status: prospect.status,
        company: company ? toCompanyView(company) : null,
        custom_fields: prospect.customFields ?? {},
      },
    },
  };
}
