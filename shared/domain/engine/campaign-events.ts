/**
 * What prospects do in a campaign, as the engine learns it from the provider and the unsubscribe
 * link: append-only records, one per `ref` (the invitation, an inbound message id, ...), so a
 * replayed webhook is recorded once. Analytics counts them; the ACCEPTED_INVITE condition reads
 * the acceptance.
 */
export type CampaignEventKind =
  | 'INVITE_ACCEPTED'
  | 'REPLIED'
  | 'AUTO_REPLY'
  | 'BOUNCED'
  | 'UNSUBSCRIBED'
  /** A pipeline status a user set (PATCH prospect): one per prospect, campaign and status (`ref` PIPELINE_REF). */
  | 'INTERESTED'
  | 'NOT_INTERESTED'
  | 'MEETING_SCHEDULED';

/** The `ref` of a pipeline status event: a status set again counts once. */
export const PIPELINE_REF = 'status';

/** The `ref` of a prospect's invitation acceptance: one per prospect and campaign. */
export const ACCEPTANCE_REF = 'invite';

export interface CampaignEvent {
  workspaceId: number;
  campaignId: number;
  prospectId: number;
  kind: CampaignEventKind;
  ref: string;
  at: string;
  channel: 'EMAIL' | 'NETWORK' | null;
  /** Our sender account it came through, when known. */
  accountId: number | null;
  /** The step it answers, when known (an email reply names the email it answers). */
  nodeId: number | null;
  /**
   * The answered send's A/B variant and time, when its record carries them (chats written and
   * emails sent since 2026-11-28): a reply is attributed to that step, not to the prospect's last.
   */
  variant?: 'A' | 'B';
  sentAt?: string;
}

export interface CampaignEvents {
  /** Records the event unless one with its kind, prospect and ref exists; true when this call recorded it. */
  record(event: CampaignEvent): Promise<boolean>;
  /** The prospect's recorded acceptance in the campaign (one per campaign and prospect): when, and on which account. */
  accepted(campaignId: number, prospectId: number): Promise<{ at: string; accountId: number | null } | undefined>;
}

/**
 * An acceptance seen without the provider's webhook counting it: at the ACCEPTED_INVITE deadline
 * (the profile first degree; `nodeId` null), or when an invitation whose answer was lost is looked
 * for and found accepted (the webhook may have come while nothing named the invitation). Counted
 * once: the event is keyed by campaign and prospect, and a webhook coming later finds it recorded.
 */
export async function keepAcceptance(
  events: Pick<CampaignEvents, 'record'>,
  action: { workspaceId: number; campaignId: number; prospectId: number },
  nodeId: number | null,
  accountId: number,
  at: string,
): Promise<void> {
  await events.record({
    workspaceId: action.workspaceId,
    campaignId: action.campaignId,
    prospectId: action.prospectId,
    kind: 'INVITE_ACCEPTED',
    ref: ACCEPTANCE_REF,
    at,
    channel: 'NETWORK',
    accountId,
    nodeId,
  });
}
