import { describe, expect, it } from 'vitest';
import type { CampaignStep } from '../../../shared/domain/campaigns/nodes';
import { chooseVariant, fitInvitationNote, renderStep, renderTemplate } from '../../../shared/domain/engine/render';
import type { Company, Prospect } from '../../../shared/domain/leads/lead';

const CREATED = '2027-01-04T10:00:00.000Z';

const prospectWith = (fields: Partial<Prospect> = {}): Prospect => ({
  id: 1,
  workspaceId: 1,
  status: 'IN_REVIEW',
  listIds: [5],
  version: 1,
  createdAt: CREATED,
  updatedAt: CREATED,
  firstName: 'Ada',
  lastName: 'Lovelace',
  jobTitle: 'Analyst',
  location: 'London',
  ...fields,
});

const company: Company = {
  id: 3,
  workspaceId: 1,
  name: 'Engines & Co',
  listIds: [],
  version: 1,
  membersSyncedVersion: 1,
  createdAt: CREATED,
  updatedAt: CREATED,
};

const stepWith = (fields: Partial<CampaignStep> = {}): CampaignStep => ({
  kind: 'STEP',
  id: 7,
  campaignId: 1,
  stepType: 'EMAIL',
  subjectLine: '',
  messageTemplate: '',
  subjectLineB: '',
  messageTemplateB: '',
  delayInHours: 0,
  addUnsubscribe: false,
  createdAt: CREATED,
  updatedAt: CREATED,
  ...fields,
});

/** A prospect id on each variant of step 7 (found by chooseVariant itself). */
const onVariant = (variant: 'A' | 'B', step = stepWith({ messageTemplateB: 'b' })) => {
  for (let id = 1; ; id += 1) if (chooseVariant(step, id) === variant) return id;
};

describe('rendering a step for a prospect', () => {
  it('fills the placeholders, with spaces inside the braces allowed', () => {
    const template = 'Hi {{first_name}} {{ last_name }}, {{  job_title}} at {{company_name }} in {{location}}.';
    expect(renderTemplate(template, prospectWith(), company)).toBe('Hi Ada Lovelace, Analyst at Engines & Co in London.');
  });

  it('renders a missing value, an unknown placeholder and a company name without a company as empty text', () => {
    const prospect = prospectWith({ jobTitle: undefined, location: undefined });
    expect(renderTemplate('[{{job_title}}|{{location}}|{{company_name}}|{{nickname}}|{{}}]', prospect, undefined)).toBe('[||||]');
  });

  it('fills custom fields: strings, numbers, objects as JSON, missing and null as empty', () => {
    const prospect = prospectWith({ customFields: { team: 'Analytics', seats: 42, ratio: 0.5, stack: { db: 'DynamoDB', tags: ['a', 'b'] }, none: null, yes: true } });
    const template = '{{custom.team}};{{ custom.seats }};{{custom.ratio}};{{custom.stack}};{{custom.none}};{{custom.absent}};{{custom.yes}}';
    expect(renderTemplate(template, prospect, company)).toBe('Analytics;42;0.5;{"db":"DynamoDB","tags":["a","b"]};;;true');
    expect(renderTemplate('[{{custom.team}}]', prospectWith(), company)).toBe('[]');
  });

  it('leaves text that is not a placeholder as it is', () => {
    expect(renderTemplate('{first_name} {{{first_name}}} {{first_name', prospectWith(), company)).toBe('{first_name} {Ada} {{first_name');
  });

  it('escapes values in an email body, never the template’s own HTML', () => {
    const prospect = prospectWith({ firstName: '<b>Ada</b> & "Co"', customFields: { note: "it's <here>" } });
    const step = stepWith({
      stepType: 'EMAIL',
      subjectLine: 'For {{first_name}}',
      messageTemplate: '<p>Hello <i>{{first_name}}</i>, {{custom.note}} &amp; {{company_name}}</p>',
    });
    expect(renderStep(step, prospect, company)).toEqual({
      variant: 'A',
      subject: 'For <b>Ada</b> & "Co"',
      text: "<p>Hello <i>&lt;b&gt;Ada&lt;/b&gt; &amp; &quot;Co&quot;</i>, it's &lt;here&gt; &amp; Engines &amp; Co</p>",
    });
    // Network steps are plain text: nothing is escaped.
    for (const stepType of ['NETWORK_INVITE', 'NETWORK_MESSAGE'] as const) {
      expect(renderStep({ ...step, stepType }, prospect, company).text).toBe('<p>Hello <i><b>Ada</b> & "Co"</i>, it\'s <here> &amp; Engines & Co</p>');
    }
    expect(renderTemplate('{{first_name}}', prospect, company, true)).toBe('&lt;b&gt;Ada&lt;/b&gt; &amp; &quot;Co&quot;');
  });

  it('sends a subject as one line: a line break from the template or a value would start a header', () => {
    const prospect = prospectWith({ customFields: { line: 'x\r\nBcc: evil@example.com' } });
    const step = stepWith({ stepType: 'EMAIL', subjectLine: 'Hi\r\n{{first_name}}\t{{custom.line}}\u0000 ', messageTemplate: 'Body' });
    expect(renderStep(step, prospect, company).subject).toBe('Hi Ada x Bcc: evil@example.com');
  });

  it('sends A when the step has no B text or subject (blank counts as none)', () => {
    const step = stepWith({ subjectLine: 'Subject A', messageTemplate: 'Text A', subjectLineB: '  ', messageTemplateB: '\n' });
    const prospect = prospectWith({ id: onVariant('B') });
    expect(chooseVariant(step, prospect.id)).toBe('A');
    expect(renderStep(step, prospect, company)).toEqual({ variant: 'A', subject: 'Subject A', text: 'Text A' });
  });

  it('uses the B text and the B subject each where the step has it', () => {
    const texts = { subjectLine: 'Subject A {{first_name}}', messageTemplate: 'Text A {{first_name}}' };
    const both = stepWith({ ...texts, subjectLineB: 'Subject B {{first_name}}', messageTemplateB: 'Text B {{first_name}}' });
    const subjectOnly = stepWith({ ...texts, subjectLineB: 'Subject B {{first_name}}' });
    const textOnly = stepWith({ ...texts, messageTemplateB: 'Text B {{first_name}}' });
    const b = prospectWith({ id: onVariant('B') });
    const a = prospectWith({ id: onVariant('A') });
    expect(renderStep(both, b, company)).toEqual({ variant: 'B', subject: 'Subject B Ada', text: 'Text B Ada' });
    expect(renderStep(subjectOnly, b, company)).toEqual({ variant: 'B', subject: 'Subject B Ada', text: 'Text A Ada' });
    expect(renderStep(textOnly, b, company)).toEqual({ variant: 'B', subject: 'Subject A Ada', text: 'Text B Ada' });
    expect(renderStep(both, a, company)).toEqual({ variant: 'A', subject: 'Subject A Ada', text: 'Text A Ada' });
  });

  it('chooses the variant deterministically by prospect and step', () => {
    const step = stepWith({ id: 7, messageTemplateB: 'b' });
    const first = Array.from({ length: 40 }, (_, i) => chooseVariant(step, i + 1)).join('');
    const again = Array.from({ length: 40 }, (_, i) => chooseVariant({ ...step, subjectLineB: 'other' }, i + 1)).join('');
    expect(first).toBe('BBBBBAAAABBBAABAAABAABAAABBBAABAABBAAAAB');
    expect(again).toBe(first);
    // Another step splits the same prospects differently.
    expect(Array.from({ length: 40 }, (_, i) => chooseVariant({ ...step, id: 8 }, i + 1)).join('')).toBe('AABBABBBAABBABAABABAABABAABAAABBAABBAAAB');
  });

  it('sends B to half the prospects of a step: 5,025 of prospects 1 to 10,000 for step 7', () => {
    const step = stepWith({ id: 7, messageTemplateB: 'b' });
    let countB = 0;
    for (let prospectId = 1; prospectId <= 10_000; prospectId += 1) if (chooseVariant(step, prospectId) === 'B') countB += 1;
    expect(countB).toBe(5025);
    expect(Math.abs(countB - 5000) <= 100).toBe(true);
  });
});

describe('an invitation note within the provider’s 300 characters', () => {
  it('cuts a note its placeholders took past 300, at a space near the end, with an ellipsis', () => {
    const step = stepWith({ stepType: 'NETWORK_INVITE', messageTemplate: `${'word '.repeat(56)}{{company_name}}` });
    const long = { ...company, name: 'A very long company name that goes on and on Incorporated' };
    const { text } = renderStep(step, prospectWith({ companyId: 3 }), long);
    // 280 + 'A very long company' is 299 units: the word that ends there is kept, then the ellipsis.
    expect(text).toBe(`${'word '.repeat(56)}A very long company…`);
    expect(text).toHaveLength(300);
    // One unit less room: the cut goes back to the start of the word it would split.
    const shorter = renderStep(stepWith({ stepType: 'NETWORK_INVITE', messageTemplate: `x${'word '.repeat(56)}{{company_name}}` }), prospectWith({ companyId: 3 }), long).text;
    expect(shorter).toBe(`x${'word '.repeat(56)}A very long…`);
  });

  it('leaves a note of 300 as it is, cuts mid-word where no space is near, and never splits a character', () => {
    expect(fitInvitationNote(` ${'x'.repeat(300)} `)).toBe('x'.repeat(300));
    expect(fitInvitationNote('x'.repeat(301))).toBe(`${'x'.repeat(299)}…`);
    // An emoji is two UTF-16 units, which the provider counts: 298 + 2 = 300 units fit, the last does not split.
    expect(fitInvitationNote(`${'x'.repeat(298)}😀😀`)).toBe(`${'x'.repeat(298)}…`);
    // A flag is two code points (four units): never cut in half.
    expect(fitInvitationNote(`${'x'.repeat(297)}🇫🇷yy`)).toBe(`${'x'.repeat(297)}…`);
    // A line break is a word's end too.
    expect(fitInvitationNote(`${'x'.repeat(280)}\nabcdefghijklmnopqrstuvwxyz`)).toBe(`${'x'.repeat(280)}…`);
    // An email or a message is not cut.
    expect(renderStep(stepWith({ stepType: 'NETWORK_MESSAGE', messageTemplate: 'y'.repeat(400) }), prospectWith(), undefined).text).toHaveLength(400);
  });
});
