import { header } from '../../../shared/http/request';

const MULTIPART_FIELD = /content-disposition:\s*form-data;\s*name="?List-Unsubscribe"?\s*(?:;[^\r\n]*)?\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/i;

/**
 * Whether a POST is the RFC 8058 one-click request: the field `List-Unsubscribe=One-Click`, sent
 * form-encoded (mail software; the confirmation page's own form) or as multipart/form-data (which
 * RFC 8058 also allows). Pure.
 */
export function isOneClick(headers: Record<string, string | undefined> | null, text: string): boolean {
  const type = (header(headers, 'content-type') ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return MULTIPART_FIELD.test(text);
  return new URLSearchParams(text.trim()).get('List-Unsubscribe') === 'One-Click';
}
