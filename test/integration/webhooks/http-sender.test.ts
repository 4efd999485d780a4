import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../shared/webhooks/http-sender';
import { type Receiver, startReceiver } from '../../support/receiver';

/**
 * What the webhook sender makes of a receiver's timing, over real HTTP on loopback: the bound is
 * on the answer (its status line), so a body slow to end never turns an answer into a timeout.
 */
describe('the webhook sender and slow answers', () => {
  const TIMEOUT_MS = 300;
  let receiver: Receiver;
  const sender = createHttpSender({ allowLoopback: true });

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.stop());

  it('takes a 2xx as delivered when its status comes, without waiting for its body to end', async () => {
    receiver.plan({ status: 200, body: 'accepted, still writing', stallBody: true });
    expect(await sender.post(receiver.url, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'response', status: 200, reason: '' });
  });

  it('answers a failure whose body does not end within the bound with its status and the reason read so far', async () => {
    receiver.plan({ status: 500, body: 'Internal error: queue full', stallBody: true });
    expect(await sender.post(receiver.url, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'response', status: 500, reason: 'Internal error: queue full' });
  });

  it('passes on a failure’s Retry-After header as sent, and none on a success', async () => {
    receiver.plan({ status: 429, body: 'Slow down', headers: { 'retry-after': '120' } }, { status: 200, headers: { 'retry-after': '120' } });
    expect(await sender.post(receiver.url, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'response', status: 429, reason: 'Slow down', retryAfter: '120' });
    expect(await sender.post(receiver.url, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'response', status: 200, reason: '' });
  });

  it('times out when no status comes within the bound', async () => {
    receiver.plan({ status: 200, hang: true });
    expect(await sender.post(receiver.url, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'timeout' });
  });
});
