import { DomainError, conflict, notFound, validationError } from '../errors';
import type { Clock } from '../ports';
import { type DeliveryAttempt, type DeliveryStatus, describeOutcome, isSuccessStatus, toDeliveryAttemptView } from './delivery';
import { bodyFor, sampleIncomingMessage } from './events';
import type { DeliveryQueue, DestinationPolicy, MembershipCheck, ReopenResult, WebhookDeliveryRepository, WebhookSender, WebhookSettingsRepository, WebhookSigner } from './ports';
import { JSON_HEADERS, signedHeaders } from './signing';
import {
  MAX_OLDER_SECRETS,
  SECRET_ROTATION_OVERLAP_MS,
  type WebhookSettings,
  type WebhookType,
  activeUrl,
  freshSettings,
  generateSigningSecret,
  nextUpdatedAt,
  rotatedSecretsAt,
  signingSecrets,
} from './webhook';

export interface WebhookServiceDeps {
  settings: WebhookSettingsRepository;
  deliveries: Pick<WebhookDeliveryRepository, 'recordAttempt' | 'listAttempts' | 'failed' | 'reopen' | 'restoreFailed'>;
  /** Whether the user may still get an event of that workspace (sent again only if so). */
  memberships: MembershipCheck;
  /** Where a delivery sent again goes: the webhooks queue, whose worker delivers it as any event. */
  queue: DeliveryQueue;
  sender: WebhookSender;
  signer: WebhookSigner;
  policy: DestinationPolicy;
  clock: Clock;
  /** Id of a test event (a fresh one per test send). */
  newTestEventId: () => string;
  /** Bound on the test request (connect, send and answer). */
  testTimeoutMs: number;
  newSecret?: () => string;
}

/** The spec's texts for webhook-test failures (Errors table), plus ours for refused and unreachable URLs. */
export const WEBHOOK_TEST_ERRORS = {
  notConfigured: 'No webhook URL configured. Please configure a webhook first.',
  timedOut: 'Webhook request timed out. Please check your webhook URL.',
  httpStatus: (status: number) => `Webhook delivery failed with HTTP ${status}`,
  blocked: 'Webhook URL is not allowed: it must resolve to a public internet address',
  network: 'Webhook request failed: could not connect to the webhook URL',
} as const;

const testFailure = (message: string, details?: string) =>
  new DomainError('validation', message, { success: false, ...(details ? { details } : {}) });

const SAVE_TRIES = 3;

/** The answer for an event id that names no delivery of the caller's (never one, another user's, or expired). */
export const DELIVERY_NOT_FOUND = 'Delivery not found';

/** Why a delivery cannot be sent again, by its status (FAILED: given up on before failed deliveries kept their event). */
const REDELIVERY_REFUSED: Record<DeliveryStatus, string> = {
  PENDING: 'This delivery is still being attempted: only one whose attempts all failed can be sent again',
  DELIVERED: 'This delivery was delivered: only one whose attempts all failed can be sent again',
  SKIPPED: 'This delivery was not sent (no webhook URL, or no longer a member of its workspace): only one whose attempts all failed can be sent again',
  FAILED: 'This delivery failed before failed deliveries were kept (2026-11-28): it cannot be sent again',
};

/** Why an event given up on would not be sent if queued again (it stays given up on, to ask again later). */
export const REDELIVERY_NOWHERE = {
  noUrl: 'No webhook URL is configured: set one (PUT /api/v1/user/webhook/), then ask again',
  notMember: 'You are no longer a member of the workspace of this event: it cannot be sent to you',
  disabled: 'Your webhook is disabled since its endpoint answered 410 Gone: set its URL again (PUT /api/v1/user/webhook/), then ask again',
} as const;

/** The message of a delivery that can be sent again, or the 404 or 409 saying why not. */
function reopenedMessage(found: ReopenResult) {
  if (found.kind === 'missing') throw notFound(DELIVERY_NOT_FOUND);
  if (found.kind === 'not_failed') throw conflict(REDELIVERY_REFUSED[found.status]);
  if (found.kind === 'not_kept') throw conflict(REDELIVERY_REFUSED.FAILED);
  return found.message;
}

/** The user's webhook settings, the test send, and the delivery log. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const newSecret = deps.newSecret ?? generateSigningSecret;

  /** Read-modify-write with an optimistic check; retried a few times when someone else wrote in between. */
  async function update(userId: number, change: (current: WebhookSettings | undefined, now: Date) => WebhookSettings | undefined) {
    for (let i = 0; i < SAVE_TRIES; i += 1) {
      const current = await deps.settings.get(userId);
      const next = change(current, deps.clock.now());
      if (!next) return { current, next: undefined };
      if (await deps.settings.save(next, current?.updatedAt ?? null)) return { current, next };
    }
    throw conflict('Webhook settings changed while saving, please retry');
  }

  return {
    async get(userId: number): Promise<{ settings: WebhookSettings | undefined; type: WebhookType | null }> {
      const settings = await deps.settings.get(userId);
      return { settings, type: settings?.url ? deps.policy.webhookType(settings.url) : null };
    },

    /**
     * Sets (or, with null, clears) the URL. The first set creates the signing secret, which is
     * returned that once; later sets keep it. A secret the delivery worker made (never shown) is
     * returned by the next set, once.
     */
    async setUrl(userId: number, rawUrl: string | null): Promise<{ url: string | null; signingSecret?: string }> {
      let url: string | null = null;
      if (rawUrl !== null) {
        const checked = deps.policy.check(rawUrl);
        if (!checked.ok) throw validationError(checked.reason);
        url = checked.url;
      }
      let created: string | undefined;
      await update(userId, (current, now) => {
        const stamp = nextUpdatedAt(current, now);
        if (current) {
          // A secret the delivery worker made and never showed is shown now, once.
          created = current.secretUnseen ? current.secret : undefined;
          // Any set enables a webhook disabled by a 410 Gone: the user says where events go now.
          const { secretUnseen: _shown, disabledAt: _enabled, ...seen } = current;
          return { ...seen, url, updatedAt: stamp };
        }
        if (url === null) return undefined;
        created = newSecret();
        return freshSettings(userId, url, created, stamp);
      });
      return created === undefined ? { url } : { url, signingSecret: created };
    },

    /** A new signing secret, shown once; the old one keeps signing for a day alongside it. */
    async rotateSecret(userId: number): Promise<{ signingSecret: string; previousSecretValidUntil: string }> {
      let secret = '';
      let validUntil = '';
      await update(userId, (current, now) => {
        if (!current) throw notFound('No webhook configured: set a webhook URL first');
        secret = newSecret();
        validUntil = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS).toISOString();
        const stamp = nextUpdatedAt(current, now);
        const { secretUnseen: _replaced, ...rest } = current;
        // The secrets rotated out still within their day keep signing (a rotation repeated, or two
        // at once, never takes back a secret just handed out), up to MAX_OLDER_SECRETS of them.
        const older = rotatedSecretsAt(current, now).slice(0, MAX_OLDER_SECRETS);
        return {
          ...rest,
          secret,
          secretCreatedAt: stamp,
          previousSecret: current.secret,
          previousSecretValidUntil: validUntil,
          olderSecrets: older,
          updatedAt: stamp,
        };
      });
      return { signingSecret: secret, previousSecretValidUntil: validUntil };
    },

    /**
     * Sends a sample incoming-message notification now, once, and reports how the receiver
     * answered. Failures are 400s with `success: false` (spec: Webhook test).
     */
    async sendTest(userId: number, workspaceId: number): Promise<{ webhookType: WebhookType; statusCode: number }> {
      const settings = await deps.settings.get(userId);
      if (!settings?.url) throw testFailure(WEBHOOK_TEST_ERRORS.notConfigured);
      const type = deps.policy.webhookType(settings.url);
      const now = deps.clock.now();
      // The sample is about the workspace the caller acts in.
      const sample = sampleIncomingMessage(userId, now, deps.newTestEventId(), workspaceId);
      const body = JSON.stringify(bodyFor(type, sample, true));
      const headers =
        type === 'generic'
          ? { ...JSON_HEADERS, ...signedHeaders(deps.signer, signingSecrets(settings, now), sample.event_id, now, body) }
          : { ...JSON_HEADERS };
      const started = deps.clock.now().getTime();
      const outcome = await deps.sender.post(settings.url, body, headers, deps.testTimeoutMs);
      const described = describeOutcome(outcome);
      const attempt: DeliveryAttempt = {
        userId,
        eventId: sample.event_id,
        eventType: sample.type,
        attempt: 1,
        at: now.toISOString(),
        ...described,
        durationMs: Math.max(0, deps.clock.now().getTime() - started),
        nextAttemptAt: null,
        test: true,
      };
      await deps.deliveries.recordAttempt(attempt);
      switch (outcome.kind) {
        case 'response':
          if (isSuccessStatus(outcome.status)) return { webhookType: type, statusCode: outcome.status };
          throw testFailure(WEBHOOK_TEST_ERRORS.httpStatus(outcome.status), outcome.reason || undefined);
        case 'timeout':
          throw testFailure(WEBHOOK_TEST_ERRORS.timedOut);
        case 'blocked':
          throw testFailure(WEBHOOK_TEST_ERRORS.blocked, outcome.reason);
        case 'network':
          throw testFailure(WEBHOOK_TEST_ERRORS.network, outcome.reason);
      }
    },

    async listDeliveries(userId: number, page: { limit: number; after?: string | undefined }) {
      const { items, next } = await deps.deliveries.listAttempts(userId, { ...page, now: deps.clock.now().toISOString() });
      return { deliveries: items.map(toDeliveryAttemptView), next_cursor: next ?? null };
    },

    /**
     * Queues again an event whose delivery to this user was given up on: its attempts start over
     * (the whole retry schedule), to the URL set when each is made. The record is reopened first, so
     * the worker takes the message as a delivery to make; a message that cannot be queued puts the
     * record back as it was. One that would find nowhere to go (no webhook URL, a webhook disabled
     * by a 410, or its user no longer a member of the event's workspace) is refused and stays given
     * up on, to ask again later (before 2026-11-29, answered 202, and the worker dropped it).
     */
    async redeliver(userId: number, eventId: string): Promise<void> {
      const now = deps.clock.now().toISOString();
      const message = reopenedMessage(await deps.deliveries.failed({ userId, eventId, now }));
      if (message.workspace_id !== undefined && !(await deps.memberships.isMember(userId, message.workspace_id))) {
        throw conflict(REDELIVERY_NOWHERE.notMember);
      }
      // An event with its own URL (an enrichment job's webhook_url) goes there again.
      if (!message.url) {
        const settings = await deps.settings.get(userId);
        if (!settings?.url) throw conflict(REDELIVERY_NOWHERE.noUrl);
        if (!activeUrl(settings)) throw conflict(REDELIVERY_NOWHERE.disabled);
      }
      const reopened = reopenedMessage(await deps.deliveries.reopen({ userId, eventId, now }));
      try {
        await deps.queue.enqueue([reopened]);
      } catch (error) {
        await deps.deliveries.restoreFailed({ userId, eventId, reopenedAt: now });
        throw error;
      }
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
