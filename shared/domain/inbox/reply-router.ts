import { type Company, type Prospect, toCompanyView } from '../leads/lead';
import { canonicalPageUrl } from '../leads/normalize';
import type { LeadRepository } from '../leads/ports';
import type { Clock, IdGenerator } from '../ports';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import type { EventPublisher } from '../webhooks/event-publisher';
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
}

export interface InboundMessageRepository {
  /** Records the message unless one with its provider id exists in the workspace; the stored one either way. */
  recordOnce(message: InboundMessage): Promise<InboundMessage>;
}

export interface ReplyRouterDeps {
  accounts: Pick<SenderAccountRepository, 'findByProviderAccountId'>;
  leads: Pick<LeadRepository, 'findIdentities' | 'getProspects' | 'getCompanies'>;
  messages: InboundMessageRepository;
  publisher: Pick<EventPublisher, 'publish'>;
  ids: IdGenerator;
  clock: Clock;
}

export type RouteOutcome =
  | { handled: true; eventId: string; prospectId: number }
  | { handled: false; reason: 'unknown_account' | 'own_message' | 'unknown_sender' };

/** The last path segment of a canonical profile URL (`https://www.linkedin.com/in/alex-doe` -> `alex-doe`). */
export function publicIdOf(profileUrl: string | undefined): string {
  if (!profileUrl) return '';
  const match = /\/in\/([^/]+)$/.exec(profileUrl);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

/** The `incoming_message` event data (seleqt-api.md §2.2, network naming). No campaigns yet: `campaign` is null. */
export function incomingMessageData(message: InboundMessage, prospect: Prospect, company: Company | undefined): IncomingMessageData {
  return {
    message: {
      id: message.id,
      message_id: message.providerMessageId,
      message: message.text,
      sent_by_lead: true,
      channel: 'NETWORK',
      sent_at: message.sentAt,
      created_at: message.createdAt,
      updated_at: message.createdAt,
      campaign: null,
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

/**
 * Routes a prospect's reply, received by the provider's `message_received` webhook, to the users'
 * webhooks as an `incoming_message` event:
 * - the receiving account is found by its provider account id (the guard item names its
 *   workspace); an account we do not know is not ours to route;
 * - messages the account sent itself (the provider marks them with `is_sender`, or the sender is
 *   the connected user) are not replies;
 * - the sender is matched to a prospect of that workspace only, by the canonical profile URL
 *   identity (`url:<canonical>`, the same guard imports claim). Prospects store no provider id yet.
 * - the event is published with the provider's message id as its source, so a webhook posted
 *   twice is one event (the delivery worker sends an event id once per user).
 */
export function createReplyRouter(deps: ReplyRouterDeps) {
  return {
    async route(input: ProviderMessage): Promise<RouteOutcome> {
      const account = await deps.accounts.findByProviderAccountId(input.accountId);
      if (!account) return { handled: false, reason: 'unknown_account' };
      const ownId = account.ownProviderUserId ?? input.accountUserId;
      if (input.isSender || (ownId !== undefined && ownId !== null && input.sender.providerId === ownId)) {
        return { handled: false, reason: 'own_message' };
      }

      const canonical = input.sender.profileUrl ? canonicalPageUrl(input.sender.profileUrl) : undefined;
      if (!canonical) return { handled: false, reason: 'unknown_sender' };
      const identity = `url:${canonical}`;
      const owners = await deps.leads.findIdentities(account.workspaceId, 'PROSPECT', [identity]);
      const prospectId = owners.get(identity);
      if (prospectId === undefined) return { handled: false, reason: 'unknown_sender' };
      const [prospect] = await deps.leads.getProspects([prospectId]);
      // The guard and the prospect are written together; a prospect of another workspace never matches.
      if (!prospect || prospect.workspaceId !== account.workspaceId) return { handled: false, reason: 'unknown_sender' };
      const company = prospect.companyId === undefined ? undefined : (await deps.leads.getCompanies([prospect.companyId]))[0];

      const now = deps.clock.now().toISOString();
      const message = await deps.messages.recordOnce({
        id: await deps.ids.next(),
        workspaceId: account.workspaceId,
        providerMessageId: input.messageId,
        senderAccountId: account.id,
        prospectId: prospect.id,
        text: input.text,
        sentAt: input.timestamp ?? now,
        createdAt: now,
      });
      const eventId = await deps.publisher.publish(
        account.workspaceId,
        'incoming_message',
        input.messageId,
        incomingMessageData(message, prospect, company?.workspaceId === account.workspaceId ? company : undefined),
      );
      return { handled: true, eventId, prospectId: prospect.id };
    },
  };
}

export type ReplyRouter = ReturnType<typeof createReplyRouter>;
