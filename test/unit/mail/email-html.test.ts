import { describe, expect, it } from 'vitest';
import { emailHtmlBody, isHtmlBody } from '../../../shared/domain/mail/email-html';

describe('email bodies', () => {
  it('takes a body with an HTML tag as HTML, and autolinks, addresses and comparisons as text', () => {
    expect(['<p>Hi</p>', 'Hi<br>there', '<a href="https://x.example">x</a>', 'Bold <B>news</B>', '<img src="x.png"/>', '<section>Hi</section>', '<!DOCTYPE html><html>'].map(isHtmlBody)).toEqual([true, true, true, true, true, true, true]);
    expect(['see <https://example.com/x>', 'write to <bob@example.com>', 'if 2 < 3 and 3 > 1', 'A<B', 'plain'].map(isHtmlBody)).toEqual([false, false, false, false, false]);
  });

  it('sends plain text escaped, its line breaks as <br>; HTML as written', () => {
    expect(emailHtmlBody('Hi,\r\nsee <https://example.com/x>\nthanks & bye')).toBe('Hi,<br>see &lt;https://example.com/x&gt;<br>thanks &amp; bye');
    expect(emailHtmlBody('<p>Hi</p>\n<p>there</p>')).toBe('<p>Hi</p>\n<p>there</p>');
  });
});
