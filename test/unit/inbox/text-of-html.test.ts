import { describe, expect, it } from 'vitest';
import { textOfHtml } from '../../../shared/domain/inbox/conversations';

describe('the plain text of an HTML body', () => {
  it('keeps what a reader sees: text, line breaks and entities', () => {
    expect(textOfHtml('<p>Hi <b>there</b> &amp; welcome</p><p>Line two<br>Line three</p>')).toBe('Hi there & welcome\nLine two\nLine three');
  });

  it('reads every character reference, named or numeric, once', () => {
    expect(textOfHtml('<p>Caf&eacute; &#233; &#x41; &lt;tag&gt; &quot;q&quot; &euro; &amp;lt; a&nbsp;b</p>')).toBe('Café é A <tag> "q" € &lt; a b');
  });

  it('keeps a `<` that opens no tag, as a browser shows it', () => {
    expect(textOfHtml('Budget < 5k, timeline > 3 months')).toBe('Budget < 5k, timeline > 3 months');
    expect(textOfHtml('a < b and c > d <3')).toBe('a < b and c > d <3');
    expect(textOfHtml('Write to me at <anna@example.com> please')).toBe('Write to me at <anna@example.com> please');
    expect(textOfHtml('See <https://example.com/pricing> for details')).toBe('See <https://example.com/pricing> for details');
    // Tags of any case, with attributes or self-closing, doctypes and end tags still go.
    expect(textOfHtml('<!DOCTYPE html><P class="x">Hi <img src="a.png"/><b>there</B></P>')).toBe('Hi there');
  });

  it('drops scripts, styles, the head and comments with what they hold', () => {
    expect(textOfHtml('<p>Hi <b>there</b> &amp; welcome</p><script>x</script>')).toBe('Hi there & welcome');
    expect(textOfHtml('<html><head><title>T</title><style>p { color: red }</style></head><body><!-- hidden --><p>Shown</p></body></html>')).toBe('Shown');
    expect(textOfHtml('<SCRIPT type="text/javascript">alert(1)</SCRIPT>After')).toBe('After');
    // An unclosed script hides the rest, as a browser would.
    expect(textOfHtml('Before<script>never closed')).toBe('Before');
  });
});
