import { resultBytesOf } from '../answer-budget';
import { validationError } from '../errors';
import type { StepType } from './flow';

/**
 * The content rules of a step (docs/campaigns.md), pure. Lengths count UTF-16 code units, as
 * JavaScript and the API's schemas do (an emoji counts 2), which is never less than what a
 * provider counts in characters. They apply to the template as written: a placeholder counts
 * with its braces, not with the value it will become.
 */

/** A LinkedIn invitation's note is at most 300 characters. */
export const MAX_INVITE_MESSAGE_LENGTH = 300;
/** A LinkedIn message is at most 8000 characters. */
export const MAX_NETWORK_MESSAGE_LENGTH = 8000;
/** Far more than any mail client shows, and the header stays far below RFC 5322's 998-character line once encoded. */
export const MAX_EMAIL_SUBJECT_LENGTH = 500;
/** Room for any outreach email; both variants at 3 UTF-8 bytes a unit stay below DynamoDB's 400 KB item. */
export const MAX_EMAIL_BODY_LENGTH = 50_000;
/** A year: a longer wait is a mistake, not a plan. */
export const MAX_DELAY_HOURS = 8760;

/** Prospect fields a template may name; `custom.<key>` names one of the prospect's custom_fields. */
export const PLACEHOLDER_FIELDS = ['first_name', 'last_name', 'job_title', 'company_name', 'location'] as const;
const CUSTOM_PLACEHOLDER = /^custom\.[A-Za-z0-9_-]{1,64}$/;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
/** How much of an unknown placeholder's name an error repeats. */
const SHOWN_NAME_LENGTH = 80;

export type TemplateField = 'message_template' | 'message_template_b' | 'subject_line' | 'subject_line_b';

/** The content fields of a step as stored (after a PATCH is merged in). */
export interface StepContent {
  message_template?: string | null;
  message_template_b?: string | null;
  subject_line?: string | null;
  subject_line_b?: string | null;
  add_unsubscribe?: boolean | null;
  delay_in_hours?: number | null;
}

const isKnownPlaceholder = (name: string): boolean =>
  (PLACEHOLDER_FIELDS as readonly string[]).includes(name) || CUSTOM_PLACEHOLDER.test(name);

/** The placeholder names a text uses, trimmed, in order of appearance (repeats included). */
export const placeholdersIn = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!.trim());

/**
 * 400 `<field>: unknown placeholder {{<name>}}` for the first `{{...}}` that is not one of
 * PLACEHOLDER_FIELDS or `custom.<key>` (key: letters, digits, _ and -, 1 to 64). Names are
 * case-sensitive; whitespace inside the braces is allowed. Unpaired braces are plain text.
 */
export function checkPlaceholders(field: TemplateField, text: string): void {
  for (const name of placeholdersIn(text)) {
    if (isKnownPlaceholder(name)) continue;
    const shown = name.length > SHOWN_NAME_LENGTH ? `${name.slice(0, SHOWN_NAME_LENGTH)}…` : name;
    throw validationError(`${field}: unknown placeholder {{${shown}}}`);
  }
}

/** A step's delay when the request gives none: the first step (the root) goes at once, the others a day after the previous one. */
export const defaultDelay = (isRoot: boolean): number => (isRoot ? 0 : 24);

/** An empty text counts as absent: a client may send "" for a field a step type does not have. */
const given = (text: string | null | undefined): text is string => text !== undefined && text !== null && text !== '';

const MESSAGE_LIMITS: Record<StepType, number> = {
  EMAIL: MAX_EMAIL_BODY_LENGTH,
  NETWORK_INVITE: MAX_INVITE_MESSAGE_LENGTH,
  NETWORK_MESSAGE: MAX_NETWORK_MESSAGE_LENGTH,
};

/**
 * Every content rule of a step of this type, first failure as a 400: delay_in_hours, the fields
 * only EMAIL steps have, the EMAIL subject, the lengths, the placeholders. Give the step as it
 * will be stored (a PATCH merged into the current step), so the required subject is judged on
 * the result.
 */
export function checkStepContent(stepType: StepType, content: StepContent): void {
  const delay = content.delay_in_hours;
  if (delay !== undefined && delay !== null && !(Number.isInteger(delay) && delay >= 0 && delay <= MAX_DELAY_HOURS)) {
    throw validationError(`delay_in_hours must be an integer from 0 to ${MAX_DELAY_HOURS}`);
  }
  const email = stepType === 'EMAIL';
  if (!email) {
    if (given(content.subject_line)) throw validationError('subject_line is only available for EMAIL steps');
    if (given(content.subject_line_b)) throw validationError('subject_line_b is only available for EMAIL steps');
    if (content.add_unsubscribe === true) throw validationError('add_unsubscribe is only available for EMAIL steps');
  } else if (!given(content.subject_line) || content.subject_line.trim() === '') {
    throw validationError('subject_line is required for EMAIL steps');
  }
  // An email or a network message without a body sends nothing useful; an invitation's note is optional.
  if (stepType !== 'NETWORK_INVITE' && (!given(content.message_template) || content.message_template.trim() === '')) {
    throw validationError(`message_template is required for ${stepType} steps`);
  }
  const texts: [TemplateField, string | null | undefined, number][] = [
    ['subject_line', content.subject_line, MAX_EMAIL_SUBJECT_LENGTH],
    ['subject_line_b', content.subject_line_b, MAX_EMAIL_SUBJECT_LENGTH],
    ['message_template', content.message_template, MESSAGE_LIMITS[stepType]],
    ['message_template_b', content.message_template_b, MESSAGE_LIMITS[stepType]],
  ];
  for (const [field, text, max] of texts) {
    if (!given(text)) continue;
    if (text.length > max) throw validationError(`${field} must be at most ${max} characters for ${stepType} steps`);
    checkPlaceholders(field, text);
  }
}

/**
 * Bytes of step texts one campaign holds at most, counted as its detail answer carries them: each
 * text escaped as JSON in the body and again in the function's result, the first step twice (in
 * `steps` and as `first_step`). 50 steps of two 50,000-character templates pass Lambda's 6 MB: the
 * campaign could then no longer be read, and each change of its flow answered 500 after it was
 * written.
 */
export const MAX_FLOW_TEXT_BYTES = 4_000_000;

/** What a step's texts add to a function's result. */
export function stepTextBytes(content: StepContent): number {
  const texts = [content.subject_line, content.message_template, content.subject_line_b, content.message_template_b];
  return resultBytesOf(texts.map((text) => text ?? ''));
}

type FlowTexts = Iterable<{ content: StepContent; first: boolean }>;

/** The bytes of a flow's texts (each step's content; `first` counted twice). */
export function flowTextBytes(steps: FlowTexts): number {
  let bytes = 0;
  for (const { content, first } of steps) bytes += stepTextBytes(content) * (first ? 2 : 1);
  return bytes;
}

/**
 * Refuses a change that takes a flow's texts past MAX_FLOW_TEXT_BYTES. One that shrinks a flow
 * already past it (written before the limit) is let through, so it can be brought under.
 */
export function checkFlowTextSize(before: FlowTexts, after: FlowTexts): void {
  const bytes = flowTextBytes(after);
  if (bytes > MAX_FLOW_TEXT_BYTES && bytes > flowTextBytes(before)) {
    throw validationError(
      `The campaign's steps would hold ${bytes} bytes of text, more than the ${MAX_FLOW_TEXT_BYTES} a campaign may (its detail is one answer); shorten or remove templates`,
    );
  }
}
