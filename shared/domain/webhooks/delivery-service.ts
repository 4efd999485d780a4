import type { Clock } from '../ports';
import { type DeliveryAttempt, type DeliveryDecision, describeOutcome, maxAttemptsFor, retryAfterSeconds, retryDelaySeconds } from './delivery';
import { type DeliveryMessage, bodyFor } from './events';
import type { DestinationPolicy, MembershipCheck, WebhookDeliveryRepository, WebhookSender, WebhookSettingsRepository, WebhookSigner } from './ports';
import { JSON_HEADERS, signedHeaders } from './signing';
import { GONE_STATUS, type WebhookSettings, activeUrl, freshSettings, generateSigningSecret, nextUpdatedAt, signingSecrets } from './webhook';

export interface DeliveryServiceDeps {
  settings: Pick<WebhookSettingsRepository, 'get' | 'save'>;
  /** A new signing secret (for a user who has none when an event with its own URL is sent). */
  newSecret?: () => string;
  deliveries: Pick<WebhookDeliveryRepository, 'claim' | 'complete' | 'giveUp'>;
  /** A user removed from the event's workspace gets no more of its events, retries included. */
  memberships: MembershipCheck;
  sender: WebhookSender;
  signer: WebhookSigner;
  policy: Pick<DestinationPolicy, 'webhookType'>;
  clock: Clock;
  /** Jitter source, [0, 1). */
  random: () => number;
  /** Bound on one attempt (connect, send and answer). */
  attemptTimeoutMs: number;
  /** How long a claimed delivery is reserved for its worker; longer than an attempt can take. */
  leaseMs: number;
  /** Seconds between attempts (see RETRY_DELAYS_SECONDS). */
  schedule: readonly number[];
}

/**
 * Delivers one event to one user's webhook, once: the delivery record in the table makes a
 * redelivered or duplicated queue message a no-op, and counts attempts across retries.
 */
export function createDeliveryService(deps: DeliveryServiceDeps) {
  const maxAttempts = maxAttemptsFor(deps.schedule);
  const newSecret = deps.newSecret ?? generateSigningSecret;

  /**
   * A user without webhook settings who gave an event its own URL (an enrichment job's
   * `webhook_url`): their signing secret is created now, without a URL, and the event is signed
   * with it. The next PUT of their webhook shows it, once (docs/enrichment.md).
   */
  async function firstSecret(userId: number): Promise<WebhookSettings | undefined> {
    const created: WebhookSettings = { ...freshSettings(userId, null, newSecret(), deps.clock.now().toISOString()), secretUnseen: true };
    if (await deps.settings.save(created, null)) return created;
    // Created meanwhile (the user set a webhook, or another delivery made the secret): theirs.
    return deps.settings.get(userId);
  }

  /**
   * The user's endpoint answered 410 Gone: their webhook is disabled until they set its URL again,
   * so it gets no more events (Standard Webhooks' rule). Only from the settings the attempt was
   * made with (`sentWith`): a user who set the URL again meanwhile, the same one included, has said
   * where events go now. True when this call disabled it.
   */
  async function disable(sentWith: WebhookSettings): Promise<boolean> {
    const stamp = nextUpdatedAt(sentWith, deps.clock.now());
    return deps.settings.save({ ...sentWith, disabledAt: stamp, updatedAt: stamp }, sentWith.updatedAt);
  }

  return {
    maxAttempts,

    /**
     * `carrier`: the queue message's id. The message that made the last attempt carries the retry;
     * another one for the same event (the event published again: a provider webhook replayed)
     * before the retry is due is dropped, so duplicates never use up the attempts early.
     */
    async deliver(message: DeliveryMessage, carrier: string): Promise<DeliveryDecision> {
      const claimedAt = deps.clock.now();
      const claim = await deps.deliveries.claim({
        userId: message.user_id,
        eventId: message.event_id,
        eventType: message.type,
        now: claimedAt.toISOString(),
        leaseUntil: new Date(claimedAt.getTime() + deps.leaseMs).toISOString(),
        maxAttempts,
        carrier,
      });
      if (claim.kind === 'finished') return claim.status === 'FAILED' ? { action: 'dead-letter' } : { action: 'ack' };
      if (claim.kind === 'scheduled') return { action: 'ack' };
      if (claim.kind === 'unrecorded') {
        // Its last attempt may have reached the receiver: never tried again blindly, but kept, so
        // that its user can have it sent again (webhook-service.ts, redeliver).
        await deps.deliveries.giveUp({ userId: message.user_id, eventId: message.event_id, now: claimedAt.toISOString(), maxAttempts, message });
        return { action: 'dead-letter' };
      }
      if (claim.kind === 'busy') {
        return { action: 'retry', delaySeconds: Math.max(1, Math.ceil((Date.parse(claim.leaseUntil) - claimedAt.getTime()) / 1000)) };
      }

      /**
       * Nothing to deliver to: no attempt, no retry. A retry (an attempt before it is in the log, with
       * its next attempt's time) writes a log line saying so, which ends what the log shows.
       */
      const skippedLine = (why: string): DeliveryAttempt | undefined =>
        // A delivery sent again on request (reopened) starts at attempt 1 with its earlier ones in the log.
        claim.attempt > 1 || claim.reopened
          ? { userId: message.user_id, eventId: message.event_id, eventType: message.type, attempt: claim.attempt, at: claimedAt.toISOString(), outcome: 'skipped', statusCode: null, error: why, durationMs: 0, nextAttemptAt: null, test: false }
          : undefined;
      const skip = async (why: string): Promise<DeliveryDecision> => {
        const attempt = skippedLine(why);
        await deps.deliveries.complete({ userId: message.user_id, eventId: message.event_id, status: 'SKIPPED', ...(attempt ? { attempt } : {}) });
        return { action: 'ack' };
      };

      // Checked before each attempt: the members were read when the event was published (through an
      // index that lags), and a retry can come hours after the user was removed.
      if (message.workspace_id !== undefined && !(await deps.memberships.isMember(message.user_id, message.workspace_id))) {
        return skip('Not sent: you are no longer a member of the workspace of this event');
      }

      let settings = await deps.settings.get(message.user_id);
      // An event with its own URL (an enrichment job's webhook_url) goes there, signed with the user's secret.
      const url = message.url ?? activeUrl(settings);
      if (url && !settings) settings = await firstSecret(message.user_id);
      // The user has no webhook (any more), or it is disabled: nothing to deliver, nothing to retry.
      if (!settings || !url) {
        const why =
          settings?.url && settings.disabledAt !== undefined
            ? 'Not sent: the webhook is disabled since its endpoint answered 410 Gone'
            : 'Not sent: no webhook URL is configured any more';
        const line = skippedLine(why);
        if (!line) return skip(why);
        // A retry, or a delivery sent again on request (the event was meant for this user, and its
        // attempts failed), is given up on and kept as after a last failed attempt, so that once a
        // URL is set (or set again) its user can have it sent (redeliver): clearing the URL while the
        // endpoint was down lost those events for good before 2026-11-29 (probe), and so did a
        // webhook disabled by another event's 410 before a redelivery's first attempt (a review).
        // To the dead-letter queue, as every FAILED delivery's message: a later copy of it finds
        // FAILED and goes there too.
        await deps.deliveries.complete({ userId: message.user_id, eventId: message.event_id, status: 'FAILED', attempt: line, message });
        return { action: 'dead-letter' };
      }

      const type = deps.policy.webhookType(url);
      const now = deps.clock.now();
      const body = JSON.stringify(bodyFor(type, message));
      const headers =
        type === 'generic'
          ? { ...JSON_HEADERS, ...signedHeaders(deps.signer, signingSecrets(settings, now), message.event_id, now, body) }
          : { ...JSON_HEADERS };
      const outcome = await deps.sender.post(url, body, headers, deps.attemptTimeoutMs);
      const finished = deps.clock.now();
      // 410 Gone: not tried again (the endpoint says it is gone for good), and the user's webhook
      // disabled (not an event's own URL). Disabled before the outcome is recorded: a worker stopped
      // in between leaves a pending delivery whose next copy finds the webhook disabled and gives it
      // up as here. The log line says whether it was.
      const gone = outcome.kind === 'response' && outcome.status === GONE_STATUS;
      const disabled = gone && !message.url && (await disable(settings));
      const described = gone
        ? { ...describeOutcome(outcome), error: `HTTP ${GONE_STATUS}: the endpoint is gone, ${disabled ? 'the webhook is disabled until its URL is set again' : 'not tried again'}` }
        : describeOutcome(outcome);
      const scheduled = described.outcome === 'delivered' || gone ? undefined : retryDelaySeconds(deps.schedule, claim.attempt, deps.random);
      // A receiver that says when to come back (Retry-After, on a 429 or 503) is not asked sooner.
      const askedFor = outcome.kind === 'response' ? retryAfterSeconds(outcome.retryAfter, finished) : undefined;
      const delay = scheduled === undefined || askedFor === undefined ? scheduled : Math.max(scheduled, askedFor);
      const attempt: DeliveryAttempt = {
        userId: message.user_id,
        eventId: message.event_id,
        eventType: message.type,
        attempt: claim.attempt,
        at: now.toISOString(),
        ...described,
        durationMs: Math.max(0, finished.getTime() - now.getTime()),
        nextAttemptAt: delay === undefined ? null : new Date(finished.getTime() + delay * 1000).toISOString(),
        test: false,
      };
      if (described.outcome === 'delivered') {
        await deps.deliveries.complete({ userId: message.user_id, eventId: message.event_id, status: 'DELIVERED', attempt });
        return { action: 'ack' };
      }
      if (delay === undefined) {
        // Kept with the record, so that its user can have it sent again (webhook-service.ts, redeliver).
        await deps.deliveries.complete({ userId: message.user_id, eventId: message.event_id, status: 'FAILED', attempt, message });
        return { action: 'dead-letter' };
      }
      await deps.deliveries.complete({ userId: message.user_id, eventId: message.event_id, status: 'PENDING', attempt });
      return { action: 'retry', delaySeconds: delay };
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
