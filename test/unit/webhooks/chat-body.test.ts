import { describe, expect, it } from 'vitest';
import { chatBody } from '../../../shared/domain/webhooks/events';

const footer = 'Outreach · event evt_1';
type SlackBody = { text: string; blocks: [{ text: { text: string } }, { elements: [{ text: string }] }] };
type TeamsBody = { text: string; attachments: [{ content: { body: { text: string }[] } }] };

describe('chat bodies of a reply', () => {
  it('escapes what Slack would read as a mention, a link or an entity, in the title and the reply', () => {
    const body = chatBody('slack', { title: 'Ann <Ops> & Co replied', text: 'Also <b>bold</b> & *stars* <!channel> <https://evil.example|Invoice>', footer }) as unknown as SlackBody;
    expect(body.blocks[0].text.text).toBe(
      '*Ann &lt;Ops&gt; &amp; Co replied*\n> Also &lt;b&gt;bold&lt;/b&gt; &amp; *stars* &lt;!channel&gt; &lt;https://evil.example|Invoice&gt;',
    );
    expect(body.text).toBe('Ann &lt;Ops&gt; &amp; Co replied\nAlso &lt;b&gt;bold&lt;/b&gt; &amp; *stars* &lt;!channel&gt; &lt;https://evil.example|Invoice&gt;');
    expect(body.blocks[1].elements[0].text).toBe(footer);
  });

  it('keeps a long reply within Slack’s 3,000 characters of a section, quote marks and entities counted', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} <>`).join('\n');
    const body = chatBody('slack', { title: 'Ann replied', text, footer }) as unknown as SlackBody;
    const section = body.blocks[0].text.text;
    expect(section.length).toBe(3000);
    expect(section.endsWith('…')).toBe(true);
    expect(section.slice(0, 31)).toBe('*Ann replied*\n> line 0 &lt;&gt;');
    // Never cut inside an entity: what precedes the ellipsis is a whole one or plain text.
    expect(/&[a-z]{0,3}…$/.test(section)).toBe(false);
    expect(body.text.length).toBeLessThanOrEqual(3000);
  });

  it('cuts the reply at 4,000 characters for Discord and Teams, whose cards would otherwise be refused', () => {
    const text = 'y'.repeat(10_000);
    const discord = chatBody('discord', { title: 'Ann replied', text, footer }) as unknown as { embeds: [{ description: string }] };
    expect(discord.embeds[0].description).toBe(`${'y'.repeat(3999)}…`);
    const teams = chatBody('teams', { title: 'Ann replied', text, footer }) as unknown as TeamsBody;
    expect(teams.attachments[0].content.body[1]?.text).toBe(`${'y'.repeat(3999)}…`);
    expect(teams.text).toBe(`Ann replied\n${'y'.repeat(3999)}…`);
    expect(JSON.stringify(teams).length).toBeLessThan(28_000);
  });
});
