import { createHash } from 'node:crypto';
import type { WebhookType } from './webhook';

/**
 * Events sent to users' webhooks. The generic body is
 * `{id, event, created_at, workspace_id, [test], ...data}`: `id` is stable across retries (and equals the
 * `webhook-id` header), `event` names the type, and the data keeps the field names the real
 * product documents for `incoming_message` (with `network` for the networking site).
 */
export type WebhookEventType = 'incoming_message' | 'enrichment_completed';

export interface CompanySummary {
  id: number;
  name: string;
  network_url: string;
  logo_url: string;
  website_url: string;
  location: string;
  industry: string;
  revenue: string;
  amount_of_employees: string;
}

export interface IncomingMessageData {
  message: {
    /** Our id of the message. */
    id: number;
    /** The provider's message id: receivers de-duplicate on it as well as on the event id. */
    message_id: string;
    message: string;
    sent_by_lead: boolean;
    /** NETWORK or EMAIL. */
    channel: 'NETWORK' | 'EMAIL';
    sent_at: string;
    created_at: string;
    updated_at: string;
    campaign: { id: number; name: string; status: string } | null;
    lead: {
      id: number;
      first_name: string;
      last_name: string;
      profile_picture_url: string;
      network_profile_url: string;
      network_public_id: string;
      job_title: string;
      industry: string;
      headline: string;
      email: string;
      phone_number: string;
      location: string;
      status: string;
      company: CompanySummary | null;
      custom_fields: Record<string, unknown>;
    };
  };
}

/** An enrichment job finished (docs/enrichment.md): its counts and credits; GET the job for more. */
export interface EnrichmentCompletedData {
  job: Record<string, unknown>;
}

export interface EventDataByType {
  incoming_message: IncomingMessageData;
  enrichment_completed: EnrichmentCompletedData;
}

/** What travels on the webhooks queue: one event for one user. */
export interface DeliveryMessage {
  event_id: string;
  user_id: number;
  type: WebhookEventType;
  created_at: string;
  data: EventDataByType[WebhookEventType];
  /** Where to deliver instead of the user's webhook URL (an enrichment job's webhook_url), signed with the user's secret. */
  url?: string;
  /**
   * The workspace the event is about: each attempt goes out only while the user is still its
   * member, so a removal stops the retries of what was queued before it. Absent in messages queued
   * before 2026-11-27 (delivered as before).
   */
  workspace_id?: number;
}

/** What an event id looks like (`evt_` and up to 60 letters, digits or `_`): the queue's messages and the API's paths check it. */
export const EVENT_ID_PATTERN = /^evt_[A-Za-z0-9_]{1,60}$/;

/**
 * A stable event id: the same source (a provider message id, say) gives the same id, so a source
 * event seen twice is delivered once.
 */
export function eventIdFor(type: WebhookEventType, workspaceId: number, sourceId: string): string {
  return `evt_${createHash('sha256').update(`${type}\n${workspaceId}\n${sourceId}`).digest('hex').slice(0, 32)}`;
}

/** The generic (signed JSON) body. */
export function genericBody(message: Pick<DeliveryMessage, 'event_id' | 'type' | 'created_at' | 'data' | 'workspace_id'>, test = false): Record<string, unknown> {
  return {
    id: message.event_id,
    event: message.type,
    created_at: message.created_at,
    // Which workspace it is about: a user linked to several tells them apart (since 2026-11-29;
    // absent for a message queued before 2026-11-27, which does not carry it).
    ...(message.workspace_id !== undefined ? { workspace_id: message.workspace_id } : {}),
    ...(test ? { test: true } : {}),
    ...message.data,
  };
}

/** One readable line about a reply, for chat services. */
function replySummary(data: IncomingMessageData): { title: string; text: string } {
  const { lead, campaign } = data.message;
  const name = `${lead.first_name} ${lead.last_name}`.trim() || 'A prospect';
  const role = [lead.job_title, lead.company?.name].filter(Boolean).join(' at ');
  const where = campaign ? ` in campaign "${campaign.name}"` : '';
  return { title: `${name}${role ? ` (${role})` : ''} replied${where}`, text: data.message.message };
}

/** At most `limit` characters: longer text is cut, with an ellipsis. */
const clip = (text: string, limit: number): string => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);

/**
 * Slack's control characters escaped (its formatting docs): a prospect's `<!channel>` or
 * `<https://evil|Invoice>` shows as typed instead of pinging the channel or disguising a link.
 */
const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack field of at most `limit` characters once escaped and quoted, cut without splitting an entity. */
function slackClip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit - 1).replace(/&[a-z]{0,3}$/, '')}…`;
}

/** Slack's limit on a section block's text (longer is refused with a 400, every retry). */
const SLACK_SECTION_LIMIT = 3000;
/** What a chat message shows of a reply: Discord's embed description limit; a Teams card stays well under its ~28 KB. */
const CHAT_TEXT_LIMIT = 4000;

const quoted = (text: string): string =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

/**
 * The body for a chat receiver: Slack (text + blocks), Discord (content + embed), Teams (an
 * Adaptive Card message, which both Workflows and connectors accept, with text as fallback).
 */
export function chatBody(type: Exclude<WebhookType, 'generic'>, content: { title: string; text: string; footer: string }) {
  const text = clip(content.text, CHAT_TEXT_LIMIT);
  const fallback = `${content.title}\n${text}`;
  switch (type) {
    case 'slack': {
      const title = slackEscape(clip(content.title, 300));
      return {
        text: slackClip(slackEscape(fallback), SLACK_SECTION_LIMIT),
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: slackClip(`*${title}*\n${quoted(slackEscape(text))}`, SLACK_SECTION_LIMIT) } },
          { type: 'context', elements: [{ type: 'mrkdwn', text: slackEscape(content.footer) }] },
        ],
      };
    }
    case 'discord':
      return {
        content: clip(content.title, 2000),
        embeds: [{ description: text, footer: { text: content.footer } }],
        allowed_mentions: { parse: [] },
      };
    case 'teams':
      return {
        type: 'message',
        text: fallback,
        summary: content.title,
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            content: {
              type: 'AdaptiveCard',
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              version: '1.4',
              body: [
                { type: 'TextBlock', text: content.title, weight: 'Bolder', wrap: true },
                { type: 'TextBlock', text, wrap: true },
                { type: 'TextBlock', text: content.footer, isSubtle: true, size: 'Small', wrap: true },
              ],
            },
          },
        ],
      };
  }
}

/** The body of an event for a receiver of the given type. */
export function bodyFor(type: WebhookType, message: DeliveryMessage, test = false): Record<string, unknown> {
  if (type === 'generic') return genericBody(message, test);
  if (message.type === 'enrichment_completed') {
    const job = (message.data as EnrichmentCompletedData).job;
    return chatBody(type, {
      title: `Enrichment job ${String(job.id)} completed`,
      text: `${String(job.found_count)} found of ${String(job.total_count)} (${String(job.enrichment_type)}); ${String(job.credits_charged)} credits charged, ${String(job.credits_refunded)} refunded.`,
      footer: `Outreach · event ${message.event_id}`,
    });
  }
  const summary = replySummary(message.data as IncomingMessageData);
  return chatBody(type, {
    title: test ? `Test notification: ${summary.title}` : summary.title,
    text: summary.text,
    footer: test ? 'Test notification from Outreach: your webhook is connected.' : `Outreach · event ${message.event_id}`,
  });
}

/** The sample the test endpoint sends (spec Events: "a sample of such a notification"). */
export function sampleIncomingMessage(userId: number, now: Date, eventId: string, workspaceId?: number): DeliveryMessage {
  const at = now.toISOString();
  return {
    event_id: eventId,
    user_id: userId,
    ...(workspaceId !== undefined ? { workspace_id: workspaceId } : {}),
    type: 'incoming_message',
    created_at: at,
    data: {
      message: {
        id: 0,
        message_id: 'sample-message',
        message: 'Hello there! Thanks for reaching out, happy to talk next week.',
        sent_by_lead: true,
        channel: 'NETWORK',
        sent_at: at,
        created_at: at,
        updated_at: at,
        campaign: { id: 0, name: 'Sample campaign', status: 'ACTIVE' },
        lead: {
          id: 0,
          first_name: 'Alex',
          last_name: 'Doe',
          profile_picture_url: '',
          network_profile_url: 'https://www.linkedin.com/in/alex-doe/',
          network_public_id: 'alex-doe',
          job_title: 'Head of Sales',
          industry: 'SaaS',
          headline: 'Helping teams close more deals',
          email: 'alex@example.com',
          phone_number: '',
          location: 'Amsterdam, NL',
          status: 'IN_REVIEW',
          company: {
            id: 0,
            name: 'Acme Inc',
            network_url: '',
            logo_url: '',
            website_url: 'https://acme.example',
            location: 'Amsterdam, NL',
            industry: 'Software',
            revenue: '',
            amount_of_employees: '51-200',
          },
          custom_fields: {},
        },
      },
    },
  };
}
