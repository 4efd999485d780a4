import { describe, expect, it } from 'vitest';
import { sampleIncomingMessage } from '../../../shared/domain/webhooks/events';
import type { ReopenResult } from '../../../shared/domain/webhooks/ports';
import { type WebhookServiceDeps, createWebhookService } from '../../../shared/domain/webhooks/webhook-service';
import { ManualClock } from '../../../shared/time/clock';

/** The redeliver rules over in-memory ports: what it answers, and that a message it cannot queue leaves the delivery as it was. */
describe('sending a failed delivery again', () => {
  const clock = new ManualClock('2026-11-28T11:00:00.000Z');
  const message = sampleIncomingMessage(7, clock.now(), 'evt_abc');
  const serviceWith = (reopen: ReopenResult, enqueue: () => Promise<void>) => {
    const restored: unknown[] = [];
    const unused = () => {
      throw new Error('not used');
    };
    const service = createWebhookService({
      settings: { get: unused, save: unused },
      deliveries: { recordAttempt: unused, listAttempts: unused, reopen: async () => reopen, restoreFailed: async (input) => void restored.push(input) },
      queue: { enqueue },
      sender: { post: unused },
      signer: { sign: unused },
      policy: { check: unused, webhookType: unused },
      clock,
      newTestEventId: () => 'evt_test',
      testTimeoutMs: 1000,
    } as WebhookServiceDeps);
    return { service, restored };
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
});
