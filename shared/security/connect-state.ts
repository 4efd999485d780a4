import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ConnectStateSigner } from '../domain/sender-accounts/ports';

/**
 * The `name` we hand to the provider's hosted-connect page and get back in its notification:
 * `cs1.<workspaceId>.<expiresAtMs>.<HMAC-SHA256>`, keyed with a secret of ours. It binds the new
 * account to the workspace that asked for the link, and expires with the link.
 */
export function createConnectStateSigner(secret: string): ConnectStateSigner {
  const mac = (payload: string) => createHmac('sha256', `connect-state:${secret}`).update(payload).digest('base64url');
  return {
    sign(workspaceId, expiresAt) {
      const payload = `cs1.${workspaceId}.${expiresAt.getTime()}`;
      return `${payload}.${mac(payload)}`;
    },
    verify(state, now) {
      const match = /^cs1\.(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(state);
      if (!match) return undefined;
      const [, workspace, expires, signature] = match;
      const expected = Buffer.from(mac(`cs1.${workspace}.${expires}`));
      const presented = Buffer.from(signature ?? '');
      if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return undefined;
      // A notification can arrive a little after the page closed; allow an hour past expiry.
      if (Number(expires) + 3_600_000 < now.getTime()) return undefined;
      return Number(workspace);
    },
  };
}
