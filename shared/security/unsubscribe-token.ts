import { createHmac, timingSafeEqual } from 'node:crypto';
import type { UnsubscribeSubject, UnsubscribeTokens } from '../domain/suppressions/ports';

/**
 * The token in an unsubscribe link: `u1.<workspaceId>.<campaignId>.<prospectId>.<HMAC-SHA256>`,
 * the MAC base64url-encoded and keyed with the unsubscribe secret. It names who unsubscribes from
 * what, and no one can forge or alter it without the secret; it holds no email address (links end
 * up in logs and proxies). It never expires: a recipient may unsubscribe from an old email.
 */
export function createUnsubscribeTokens(secret: string): UnsubscribeTokens {
  const mac = (payload: string) => createHmac('sha256', `unsubscribe:${secret}`).update(payload).digest('base64url');
  return {
    sign({ workspaceId, campaignId, prospectId }) {
      const payload = `u1.${workspaceId}.${campaignId}.${prospectId}`;
      return `${payload}.${mac(payload)}`;
    },
    verify(token) {
      const match = /^u1\.(\d{1,16})\.(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return undefined;
      const [, workspace, campaign, prospect, signature] = match;
      const expected = Buffer.from(mac(`u1.${workspace}.${campaign}.${prospect}`));
      const presented = Buffer.from(signature ?? '');
      if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return undefined;
      const subject: UnsubscribeSubject = { workspaceId: Number(workspace), campaignId: Number(campaign), prospectId: Number(prospect) };
      return Object.values(subject).every((id) => Number.isSafeInteger(id) && id >= 1) ? subject : undefined;
    },
  };
}
