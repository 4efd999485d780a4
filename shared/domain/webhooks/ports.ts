import type { DeliveryAttempt, DeliveryStatus } from './delivery';
import type { DeliveryMessage } from './events';
import type { SendOutcome } from './send-outcome';
import type { WebhookSettings, WebhookType } from './webhook';

/** Part of the WebhookSender port, so its adapters find it here too. */
export type { SendOutcome };

export interface WebhookSettingsRepository {
  get(userId: number): Promise<WebhookSettings | undefined>;
  /**
   * Writes the settings if nobody changed them since they were read (`expectedUpdatedAt`, or
   * null for "none yet"); false when someone did.
   */
  save(settings: WebhookSettings, expectedUpdatedAt: string | null): Promise<boolean>;
}

export type DeliveryClaim =
  /** `reopened`: a delivery its user had sent again after it was given up on (it keeps its message). */
  | { kind: 'claimed'; attempt: number; reopened?: boolean }
  /** Already delivered, skipped or given up on: nothing more to send. */
  | { kind: 'finished'; status: DeliveryStatus }
  /** Another worker holds the lease (a duplicate message in flight). */
  | { kind: 'busy'; leaseUntil: string }
  /** Waiting for its retry at `retryAt`, which another message carries: this one is a duplicate. */
  | { kind: 'scheduled'; retryAt: string }
  /**
   * Pending, out of attempts and no longer leased: the worker of its last attempt stopped before
   * recording how it went. Nothing more is tried; the delivery is to be given up on (`giveUp`).
   */
  | { kind: 'unrecorded' };

export type ReopenResult =
  | { kind: 'reopened'; message: DeliveryMessage }
  /** No delivery of this event to this user (never, another user's, or expired). */
  | { kind: 'missing' }
  /** Not given up on: delivered, skipped, or still being tried. */
  | { kind: 'not_failed'; status: DeliveryStatus }
  /** Given up on before deliveries kept their message (2026-11-28). */
  | { kind: 'not_kept' };

export interface WebhookDeliveryRepository {
  /**
   * Takes the lease on one event's delivery to one user and counts the attempt, atomically:
   * only if it is not finished, not leased, below maxAttempts, and either its retry is due or
   * `carrier` (the queue message's id) is the message that carries that retry; the claim makes
   * `carrier` the one that carries the next.
   */
  claim(input: { userId: number; eventId: string; eventType: string; now: string; leaseUntil: string; maxAttempts: number; carrier: string }): Promise<DeliveryClaim>;
  /**
   * Ends the attempt: new status, lease released, and the attempt's log line, together. A delivery
   * given up on (`FAILED`) keeps its `message`, so that its user can have it sent again (`reopen`).
   */
  complete(input: { userId: number; eventId: string; status: DeliveryStatus; attempt?: DeliveryAttempt; message?: DeliveryMessage }): Promise<void>;
  /**
   * Gives up on a delivery whose last attempt was never recorded (`unrecorded`), keeping `message`
   * as `complete` does for FAILED: only while it is still pending, out of attempts and unleased,
   * so a reopen or a recorded outcome in between wins.
   */
  giveUp(input: { userId: number; eventId: string; now: string; maxAttempts: number; message: DeliveryMessage }): Promise<void>;
  /**
   * A delivery given up on made pending again, with its attempts from the start: only if it is
   * `FAILED` and kept its message, which it returns to be queued again.
   */
  reopen(input: { userId: number; eventId: string; now: string }): Promise<ReopenResult>;
  /** What `reopen` would find now, writing nothing: `reopened` with the message it would queue. */
  failed(input: { userId: number; eventId: string; now: string }): Promise<ReopenResult>;
  /** Undoes a `reopen` made at `reopenedAt` whose message could not be queued (nothing tried since). */
  restoreFailed(input: { userId: number; eventId: string; reopenedAt: string }): Promise<void>;
  /** A log line outside of any delivery (test sends). */
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** The user's log of the 30 days before `now`, newest first. `after` is the cursor of the previous page. */
  listAttempts(userId: number, page: { limit: number; after?: string | undefined; now: string }): Promise<{ items: DeliveryAttempt[]; next?: string }>;
}

/** Posts to a user's URL: bounded in time, no redirects, public addresses only. */
export interface WebhookSender {
  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendOutcome>;
}

/** Standard Webhooks signatures: one `v1,<base64>` per secret, space separated. */
export interface WebhookSigner {
  sign(secrets: readonly string[], messageId: string, at: Date, body: string): string;
}

/** The URL rules checked when a webhook is saved (the sender checks addresses again on every connect). */
export interface DestinationPolicy {
  /** The URL as it will be stored (normalised), or why it is refused. */
  check(url: string): { ok: true; url: string } | { ok: false; reason: string };
  /** Which kind of receiver the URL is (see webhookTypeOf). */
  webhookType(url: string): WebhookType;
}

export interface DeliveryQueue {
  enqueue(messages: readonly DeliveryMessage[]): Promise<void>;
}

export interface WorkspaceMembers {
  listUserIds(workspaceId: number): Promise<number[]>;
}

/** Whether a user is a member of a workspace now (a strongly consistent read). */
export interface MembershipCheck {
  isMember(userId: number, workspaceId: number): Promise<boolean>;
}
