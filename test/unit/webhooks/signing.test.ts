import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { standardWebhooksSigner } from '../../../shared/webhooks/signer';

// The reference test vector of the Standard Webhooks specification.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const AT = new Date(1_614_265_330 * 1000);
const BODY = '{"test": 2432232314}';

describe('Standard Webhooks signing', () => {
  it('matches the reference vector', () => {
    expect(standardWebhooksSigner.sign([SECRET], ID, AT, BODY)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('gives one signature per secret, each verifiable', () => {
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const now = new Date();
    const signature = standardWebhooksSigner.sign([SECRET, other], ID, now, BODY);
    // The reference implementation signs the same message with each secret.
    expect(signature.split(' ')).toEqual([new Webhook(SECRET).sign(ID, now, BODY), new Webhook(other).sign(ID, now, BODY)]);
    const headers = { 'webhook-id': ID, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
    for (const secret of [SECRET, other]) expect(new Webhook(secret).verify(BODY, headers)).toEqual({ test: 2432232314 });
  });

  it('fails verification on a one-byte change and on a stale timestamp', () => {
    const now = new Date();
    const headers = {
      'webhook-id': ID,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': standardWebhooksSigner.sign([SECRET], ID, now, BODY),
    };
    expect(() => new Webhook(SECRET).verify('{"test": 2432232315}', headers)).toThrow(/^No matching signature found$/);
    const stale = new Date(now.getTime() - 6 * 60_000);
    const staleHeaders = {
      'webhook-id': ID,
      'webhook-timestamp': String(Math.floor(stale.getTime() / 1000)),
      'webhook-signature': standardWebhooksSigner.sign([SECRET], ID, stale, BODY),
    };
    expect(() => new Webhook(SECRET).verify(BODY, staleHeaders)).toThrow(/^Message timestamp too old$/);
  });
});
