import { describe, expect, it } from 'vitest';
import { sampleIncomingMessage } from '../../../shared/domain/webhooks/events';
import type { ReopenResult } from '../../../shared/domain/webhooks/ports';
import type { WebhookSettings } from '../../../shared/domain/webhooks/webhook';
import { REDELIVERY_NOWHERE, type WebhookServiceDeps, createWebhookService } from '../../../shared/domain/webhooks/webhook-service';
import { ManualClock } from '../../../shared/time/clock';

/** The redeliver rules over in-memory ports: what it answers, and that a message it cannot queue leaves the delivery as it was. */
describe('sending a failed delivery again', () => {
  const clock = new ManualClock('2026-11-28T11:00:00.000Z');
  const message = sampleIncomingMessage(7, clock.now(), 'evt_abc');
  const serviceWith = (reopen: ReopenResult, enqueue: () => Promise<void>, where: { url?: string | null; member?: boolean } = {}) => {
    const restored: unknown[] = [];
    const reopened: unknown[] = [];
    const unused = () => {
      throw new Error('not used');
    };
    const service = createWebhookService({
      settings: { get: async () => ({ url: where.url === undefined ? 'https://hooks.example.com/in' : where.url }) as WebhookSettings, save: unused },
      memberships: { isMember: async () => where.member ?? true },
      deliveries: {
        recordAttempt: unused,
        listAttempts: unused,
        failed: async () => reopen,
        reopen: async (input) => {
          reopened.push(input);
          return reopen;
        },
        restoreFailed: async (input) => void restored.push(input),
      },
      queue: { enqueue },
      sender: { post: unused },
      signer: { sign: unused },
      policy: { check: unused, webhookType: unused },
      clock,
      newTestEventId: () => 'evt_test',
      testTimeoutMs: 1000,
    } as WebhookServiceDeps);
    return { service, restored, reopened };
  };

  it('queues the kept message of a reopened delivery', async () => {
    const queued: unknown[] = [];
    const { service, restored } = serviceWith({ kind: 'reopened', message }, async () => void queued.push(message));
    await service.redeliver(7, 'evt_abc');
    expect([queued, restored]).toEqual([[message], []]);
  });

  it('puts the delivery back as failed when its message cannot be queued, and fails the request', async () => {
    const { service, restored } = serviceWith({ kind: 'reopened', message }, async () => {
      throw new Error('queue unavailable');
    });
    await expect(service.redeliver(7, 'evt_abc')).rejects.toThrow('queue unavailable');
    expect(restored).toEqual([{ userId: 7, eventId: 'evt_abc', reopenedAt: '2026-11-28T11:00:00.000Z' }]);
  });

  it.each([
    [{ kind: 'missing' }, 'not_found', 'Delivery not found'],
    [{ kind: 'not_failed', status: 'SKIPPED' }, 'conflict', 'This delivery was not sent (no webhook URL, or no longer a member of its workspace): only one whose attempts all failed can be sent again'],
    [{ kind: 'not_kept' }, 'conflict', 'This delivery failed before failed deliveries were kept (2026-11-28): it cannot be sent again'],
  ] as const)('answers %j with %s: %s', async (reopen, kind, text) => {
    const { service } = serviceWith(reopen as ReopenResult, async () => undefined);
    await expect(service.redeliver(7, 'evt_abc')).rejects.toMatchObject({ kind, message: text });
  });

  it.each([
    [{ url: null }, 'No webhook URL is configured: set one (PUT /api/v1/user/webhook/), then ask again'],
    [{ member: false }, 'You are no longer a member of the workspace of this event: it cannot be sent to you'],
  ])('refuses an event that would go nowhere (%j), leaving it given up on: %s', async (where, text) => {
    const queued: unknown[] = [];
    const { service, reopened } = serviceWith({ kind: 'reopened', message: { ...message, workspace_id: 3 } }, async () => void queued.push(message), where);
    await expect(service.redeliver(7, 'evt_abc')).rejects.toMatchObject({ kind: 'conflict', message: text });
    expect([queued, reopened]).toEqual([[], []]);
    expect(Object.values(REDELIVERY_NOWHERE)).toContain(text);
  });

  it('sends an event with its own URL (an enrichment job’s webhook_url) again though the user has none', async () => {
    const queued: unknown[] = [];
    const own = { ...message, url: 'https://jobs.example.com/done' };
    const { service } = serviceWith({ kind: 'reopened', message: own }, async () => void queued.push(own), { url: null });
    await service.redeliver(7, 'evt_abc');
    expect(queued).toEqual([own]);
  });
});
