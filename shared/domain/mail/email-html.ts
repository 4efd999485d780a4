import { stripControls } from '../validation';

/**
 * Text that goes into an email header (a subject, a display name) as one line: line breaks and tabs
 * as spaces, other control characters dropped, trimmed. A line break would start a header of its
 * own to a provider that wrote the text into the header as sent (`"Hi\r\nBcc: ..."`; probes,
 * 2026-11-29).
 */
export const headerLine = stripControls;

/** The recipient's display name of an email to a prospect, as a header line; empty when the prospect has no name. */
export const recipientName = (prospect: { firstName: string; lastName: string }): string =>
  headerLine(`${prospect.firstName} ${prospect.lastName}`).replace(/ {2,}/g, ' ');

/** HTML escaping of text put into an email body. */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The tags that make a body HTML. Any `<word>` would not do: plain text holds `<https://...>` and
 * `<bob@example.com>` (autolinks), which a mail client would hide as unknown tags.
 */
const HTML_TAG =
  /<(!doctype|!--)|<\/?(a|abbr|article|aside|b|big|blockquote|body|br|caption|center|code|col|colgroup|dd|del|div|dl|dt|em|figcaption|figure|font|footer|h[1-6]|head|header|hr|html|i|img|ins|li|main|mark|meta|nav|ol|p|pre|s|section|small|span|strike|strong|style|sub|sup|table|tbody|td|tfoot|th|thead|title|tr|u|ul)(\s[^>]*)?\/?>/i;

/** Whether an email body is written as HTML: it holds an HTML tag. */
export const isHtmlBody = (body: string): boolean => HTML_TAG.test(body);

/** Plain text as an HTML email body: escaped, its line breaks kept as `<br>` (a mail client would run its lines together). */
export const plainTextAsHtml = (text: string): string => escapeHtml(text).replace(/\r\n|\r|\n/g, '<br>');

/** A body as the provider takes it (HTML): one written as HTML as it is, plain text as HTML. */
export const emailHtmlBody = (body: string): string => (isHtmlBody(body) ? body : plainTextAsHtml(body));
