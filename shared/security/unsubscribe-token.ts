import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import type { UnsubscribeSubject, UnsubscribeTokens } from '../domain/suppressions/ports';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** `u2.<ids>.<sealed>`: an address is at most 254 characters (RFC 5321), sealed and base64url-encoded under 400. */
const SEALED_TOKEN = /^(u2\.(\d{1,16})\.(\d{1,16})\.(\d{1,16}))\.([A-Za-z0-9_-]{1,400})$/;

/**
 * The token in an unsubscribe link. It names who unsubscribes from what, and no one can forge or
 * alter it without the unsubscribe secret. It never expires: a recipient may unsubscribe from an
 * old email.
 *
 * - `u2.<workspaceId>.<campaignId>.<prospectId>.<sealed address>` (since 2026-11-28): the address
 *   the email went to, sealed with AES-256-GCM (the ids its associated data), so an unsubscribe
 *   suppresses that address even when the prospect's address has changed since. The address is
 *   not readable in the link (links end up in logs and proxies). The IV is derived from the
 *   content (a synthetic IV), so one email's link is the same on every render.
 * - `u1.<workspaceId>.<campaignId>.<prospectId>.<HMAC-SHA256>`: links sent before, and links
 *   without an address; still read (the prospect's current address is suppressed).
 */
export function createUnsubscribeTokens(secret: string): UnsubscribeTokens {
  const mac = (payload: string) => createHmac('sha256', `unsubscribe:${secret}`).update(payload).digest('base64url');
  const sealKey = createHmac('sha256', `unsubscribe-address:${secret}`).update('seal').digest();
  const ivKey = createHmac('sha256', `unsubscribe-address:${secret}`).update('iv').digest();

  const seal = (ids: string, email: string): string => {
    const iv = createHmac('sha256', ivKey).update(`${ids}\n${email}`).digest().subarray(0, IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
    cipher.setAAD(Buffer.from(ids));
    const sealed = Buffer.concat([iv, cipher.update(email, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return sealed.toString('base64url');
  };
  const unseal = (ids: string, text: string): string | undefined => {
    const sealed = Buffer.from(text, 'base64url');
    // Only the one spelling sign() writes: base64url's last character may carry unused bits, and
    // other letters there decoded to the same bytes (a probe, 2026-11-29: a link altered yet accepted).
    if (sealed.length <= IV_BYTES + TAG_BYTES || sealed.toString('base64url') !== text) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', sealKey, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(ids));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  };
  const subjectOf = (workspace: string, campaign: string, prospect: string): UnsubscribeSubject | undefined => {
    const subject: UnsubscribeSubject = { workspaceId: Number(workspace), campaignId: Number(campaign), prospectId: Number(prospect) };
    return Object.values(subject).every((id) => Number.isSafeInteger(id) && id >= 1) ? subject : undefined;
  };

  return {
    sign({ workspaceId, campaignId, prospectId, email }) {
      if (email) {
        const ids = `u2.${workspaceId}.${campaignId}.${prospectId}`;
        return `${ids}.${seal(ids, email)}`;
      }
      const payload = `u1.${workspaceId}.${campaignId}.${prospectId}`;
      return `${payload}.${mac(payload)}`;
    },
    verify(token) {
      const sealedMatch = SEALED_TOKEN.exec(token);
      if (sealedMatch) {
        const [, ids, workspace, campaign, prospect, sealed] = sealedMatch as unknown as [string, string, string, string, string, string];
        const email = unseal(ids, sealed);
        const subject = subjectOf(workspace, campaign, prospect);
        return email && subject ? { ...subject, email } : undefined;
      }
      const match = /^u1\.(\d{1,16})\.(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return undefined;
      const [, workspace, campaign, prospect, signature] = match;
      const expected = Buffer.from(mac(`u1.${workspace}.${campaign}.${prospect}`));
      const presented = Buffer.from(signature ?? '');
      if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return undefined;
      return subjectOf(workspace as string, campaign as string, prospect as string);
    },
  };
}
