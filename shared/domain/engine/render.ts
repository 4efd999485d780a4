import { createHash } from 'node:crypto';
import { MAX_INVITE_MESSAGE_LENGTH } from '../campaigns/flow-content';
import type { CampaignStep } from '../campaigns/nodes';
import type { Company, Prospect } from '../leads/lead';
import { escapeHtml, headerLine, isHtmlBody, plainTextAsHtml } from '../mail/email-html';

/**
 * What a step sends to one prospect: its A/B variant and its texts with the placeholders filled.
 * Pure. Placeholders are those the flow accepts (flow-content.ts); a value the prospect lacks
 * renders as empty text, never as the placeholder.
 */

export type Variant = 'A' | 'B';

export interface RenderedStep {
  variant: Variant;
  subject: string;
  text: string;
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * The A/B variant of a step for a prospect: B only when the step has a B text (or subject), then
 * a 50/50 split by a hash of prospect and step. Deterministic, so a retried or redelivered action
 * picks the variant it recorded, and independent per step (a prospect on B in one step is not
 * always on B in the next).
 */
export function chooseVariant(step: Pick<CampaignStep, 'id' | 'messageTemplateB' | 'subjectLineB'>, prospectId: number): Variant {
  const hasB = step.messageTemplateB.trim() !== '' || step.subjectLineB.trim() !== '';
  if (!hasB) return 'A';
  const digest = createHash('sha256').update(`${prospectId}:${step.id}`).digest();
  return ((digest[0] as number) & 1) === 0 ? 'A' : 'B';
}

function placeholderValue(name: string, prospect: Prospect, company: Company | undefined): string {
  if (name.startsWith('custom.')) {
    const value = prospect.customFields?.[name.slice('custom.'.length)];
    return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  switch (name) {
    case 'first_name':
      return prospect.firstName ?? '';
    case 'last_name':
      return prospect.lastName ?? '';
    case 'job_title':
      return prospect.jobTitle ?? '';
    case 'location':
      return prospect.location ?? '';
    case 'company_name':
      return company?.name ?? '';
    default:
      return '';
  }
}

/**
 * Fills `{{name}}` placeholders (spaces inside the braces allowed) from the prospect and its
 * company. `html`: the template is an email body the user wrote as HTML, so the values are escaped
 * (a name with `<` stays text).
 */
export function renderTemplate(template: string, prospect: Prospect, company: Company | undefined, html = false): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = placeholderValue(name.trim(), prospect, company);
    return html ? escapeHtml(value) : value;
  });
}

/**
 * An email body as HTML: a template written as HTML with its values escaped; a plain-text one
 * (no HTML tag) escaped whole, its line breaks kept as `<br>` (since 2026-11-27; a mail client ran
 * its lines together). Decided by the template, never by what a value holds.
 */
function renderEmailBody(template: string, prospect: Prospect, company: Company | undefined): string {
  return isHtmlBody(template) ? renderTemplate(template, prospect, company, true) : plainTextAsHtml(renderTemplate(template, prospect, company));
}

/** The subject and text a variant goes out with: a B that leaves one blank sends A's. */
export function variantTemplates(
  step: Pick<CampaignStep, 'subjectLine' | 'messageTemplate' | 'subjectLineB' | 'messageTemplateB'>,
  variant: Variant,
): { subject: string; text: string } {
  const either = (a: string, b: string) => (variant === 'B' && b.trim() !== '' ? b : a);
  return { subject: either(step.subjectLine, step.subjectLineB), text: either(step.messageTemplate, step.messageTemplateB) };
}

export function renderStep(step: CampaignStep, prospect: Prospect, company: Company | undefined): RenderedStep {
  const variant = chooseVariant(step, prospect.id);
  const { subject, text } = variantTemplates(step, variant);
  const rendered = step.stepType === 'EMAIL' ? renderEmailBody(text, prospect, company) : renderTemplate(text, prospect, company);
  // A subject is one header line, whether a line break came from the template or a placeholder's value.
  return { variant, subject: headerLine(renderTemplate(subject, prospect, company)), text: step.stepType === 'NETWORK_INVITE' ? fitInvitationNote(rendered) : rendered };
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Where the last white space (a space, a line break, a no-break space) of `text` is, or -1. */
function lastSpaceIn(text: string): number {
  for (let i = text.length - 1; i >= 0; i -= 1) if (/\s/.test(text[i] as string)) return i;
  return -1;
}

/**
 * An invitation's note within the provider's 300 characters. The template is checked as written
 * (campaigns.md, "Content rules"), but a placeholder's value can take it past them, which the
 * provider refuses (`errors/too_many_characters`), and that ended the prospect's sequence. Cut at
 * the last space of the last 40 characters that fit, where there is one, and marked with an ellipsis.
 */
export function fitInvitationNote(note: string): string {
  const trimmed = note.trim();
  // Counted as JavaScript counts a string's length (UTF-16 units), as the provider does; a
  // character as a reader sees it (a flag, an emoji with its skin tone, a letter and its accent)
  // is never split.
  if (trimmed.length <= MAX_INVITE_MESSAGE_LENGTH) return trimmed;
  let kept = '';
  for (const { segment } of GRAPHEMES.segment(trimmed)) {
    if (kept.length + segment.length > MAX_INVITE_MESSAGE_LENGTH - 1) break;
    kept += segment;
  }
  // A word that ends where the cut falls is kept whole; else the cut goes back to its start.
  const space = /\s/.test(trimmed[kept.length] ?? '') ? kept.length : lastSpaceIn(kept);
  const cut = space >= kept.length - 40 && space > 0 ? kept.slice(0, space) : kept;
  return `${cut.trimEnd()}…`;
}
