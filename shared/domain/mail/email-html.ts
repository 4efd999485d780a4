/** HTML escaping of text put into an email body. */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Whether an email body is written as HTML: it holds a tag (a plain-text body may still hold a lone `<`). */
const isHtmlBody = (body: string): boolean => /<[a-z][^>]*>/i.test(body);

/**
 * A body as the provider takes it (HTML): one written as HTML as it is, plain text with its line
 * breaks kept as `<br>` (a mail client would run its lines together). `textIsRaw`: the plain text
 * is not escaped yet (a manual message; a campaign step's placeholder values are escaped as
 * they are filled in, and its literal text is the user's own).
 */
export function emailHtmlBody(body: string, textIsRaw: boolean): string {
  if (isHtmlBody(body)) return body;
  return (textIsRaw ? escapeHtml(body) : body).replace(/\r\n|\r|\n/g, '<br>');
}
