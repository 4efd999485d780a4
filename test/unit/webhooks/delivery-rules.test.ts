import { describe, expect, it } from 'vitest';
import { loopbackAllowed } from '../../../shared/runtime/integrations';
import { MAX_DELAY_SECONDS, RETRY_DELAYS_SECONDS, maxAttemptsFor, parseSchedule, retryAfterSeconds, retryDelaySeconds } from '../../../shared/domain/webhooks/delivery';
import { eventIdFor } from '../../../shared/domain/webhooks/events';
import { signingSecrets, webhookTypeOf } from '../../../shared/domain/webhooks/webhook';

describe('retry schedule', () => {
  it('makes 8 attempts over about 30 hours', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([60, 300, 1_800, 7_200, 18_000, 36_000, 43_200]);
    expect(maxAttemptsFor(RETRY_DELAYS_SECONDS)).toBe(8);
    const nominalHours = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0) / 3600;
    expect(nominalHours).toBe(29.6);
    // The 12 h step waits 11 h 50 min at most (MAX_DELAY_SECONDS): 29.4 h nominal as waited.
  });

  it('jitters each delay by ±20% and never beyond SQS’s 12-hour visibility ceiling less 10 minutes in flight', () => {
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 1, () => 0.5)).toBe(60);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 1, () => 0)).toBe(48);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 1, () => 0.999_999)).toBe(72);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 4, () => 0.5)).toBe(7_200);
    expect(MAX_DELAY_SECONDS).toBe(42_600);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 7, () => 0.999_999)).toBe(42_600);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 7, () => 0.5)).toBe(42_600);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 6, () => 0.999_999)).toBe(42_600);
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 7, () => 0)).toBe(34_560);
  });

  it('reads Retry-After as seconds or as an HTTP date from now, capped like any wait', () => {
    const now = new Date('2026-11-21T12:00:00.000Z');
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 12:30:00 GMT', now)).toBe(1_800);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('999999', now)).toBe(MAX_DELAY_SECONDS);
    expect(retryAfterSeconds('99999999999999999999', now)).toBe(MAX_DELAY_SECONDS);
    // The three forms of an HTTP date, all GMT whatever the machine's zone (asctime does not say so).
    expect(retryAfterSeconds('Saturday, 21-Nov-26 12:30:00 GMT', now)).toBe(1_800);
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(retryAfterSeconds('Sat Nov 21 12:30:00 2026', now)).toBe(1_800);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds('-5', now)).toBeUndefined();
  });

  it('has no delay after the last attempt', () => {
    expect(retryDelaySeconds(RETRY_DELAYS_SECONDS, 8, () => 0.5)).toBeUndefined();
    expect(retryDelaySeconds([0, 0], 3, () => 0.5)).toBeUndefined();
  });

  it('parses configured schedules and refuses malformed ones', () => {
    expect(parseSchedule('0,0')).toEqual([0, 0]);
    expect(parseSchedule(' 60, 300 ')).toEqual([60, 300]);
    for (const raw of ['', 'a,b', '-1', '1.5', '43201', Array(21).fill('1').join(',')]) expect(parseSchedule(raw), raw).toBeUndefined();
  });
});

describe('webhook receivers', () => {
  it.each([
    ['https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'slack'],
    ['https://hooks.slack-gov.com/services/T0/B0/abc', 'slack'],
    ['https://hooks.slack.com/triggers/T0/123/abc', 'generic'],
    ['https://discord.com/api/webhooks/123456789012345678/abcdefGHIJ_-', 'discord'],
    ['https://canary.discordapp.com/api/v10/webhooks/123456789012345678/token', 'discord'],
    ['https://acme.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d', 'teams'],
    ['https://prod-12.westeurope.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke?api-version=2016-06-01', 'teams'],
    ['https://example.com/services/T0/B0/abc', 'generic'],
    ['https://example.com/webhooks/outreach', 'generic'],
    ['not a url', 'generic'],
  ])('recognises %s as %s', (url, type) => {
    expect(webhookTypeOf(url)).toBe(type);
  });

  it('matches the path alone for local receivers, when asked', () => {
    expect(webhookTypeOf('http://127.0.0.1:9999/services/T0/B0/abc', { anyHost: true })).toBe('slack');
    expect(webhookTypeOf('http://127.0.0.1:9999/services/T0/B0/abc')).toBe('generic');
  });

  it('signs with the previous secret too, until the overlap ends', () => {
    const settings = {
      userId: 1,
      url: 'https://example.com/',
      secret: 'new',
      secretCreatedAt: '2026-11-21T00:00:00.000Z',
      previousSecret: 'old',
      previousSecretValidUntil: '2026-11-22T00:00:00.000Z',
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: '2026-11-21T00:00:00.000Z',
    };
    expect(signingSecrets(settings, new Date('2026-11-21T12:00:00.000Z'))).toEqual(['new', 'old']);
    expect(signingSecrets(settings, new Date('2026-11-22T00:00:00.000Z'))).toEqual(['new']);
    // Older rotations still within their day sign too, newest first; one past its day does not.
    const older = [
      { secret: 'older', validUntil: '2026-11-21T20:00:00.000Z' },
      { secret: 'oldest', validUntil: '2026-11-21T10:00:00.000Z' },
    ];
    expect(signingSecrets({ ...settings, olderSecrets: older }, new Date('2026-11-21T12:00:00.000Z'))).toEqual(['new', 'old', 'older']);
    expect(signingSecrets({ ...settings, olderSecrets: older }, new Date('2026-11-21T09:00:00.000Z'))).toEqual(['new', 'old', 'older', 'oldest']);
  });

  it('derives the event id from its source, so one source event is one event', () => {
    const id = eventIdFor('incoming_message', 1, 'provider-message-1');
    // The first 32 hex digits of SHA-256("incoming_message\n1\nprovider-message-1").
    expect(id).toBe('evt_d3b25c50416acc429e3cb1e224d038c7');
    expect(eventIdFor('incoming_message', 1, 'provider-message-1')).toBe(id);
    expect(eventIdFor('incoming_message', 2, 'provider-message-1')).toBe('evt_c7208cb5b0242295c14fff216c89f2af');
  });

  it('never allows loopback outside the local runtime', () => {
    expect(loopbackAllowed({ runtime: 'local', webhookAllowLoopback: true })).toBe(true);
    expect(loopbackAllowed({ runtime: 'local', webhookAllowLoopback: false })).toBe(false);
    expect(loopbackAllowed({ runtime: 'aws', webhookAllowLoopback: false })).toBe(false);
    expect(() => loopbackAllowed({ runtime: 'aws', webhookAllowLoopback: true })).toThrow(/^Invalid environment: WEBHOOK_ALLOW_LOOPBACK=1 is only allowed with RUNTIME=local$/);
  });
});
