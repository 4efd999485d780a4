import { describe, expect, it } from 'vitest';
import {
  checkPlaceholders,
  checkStepContent,
  defaultDelay,
  MAX_DELAY_HOURS,
  MAX_EMAIL_BODY_LENGTH,
  MAX_EMAIL_SUBJECT_LENGTH,
  MAX_INVITE_MESSAGE_LENGTH,
  MAX_NETWORK_MESSAGE_LENGTH,
  placeholdersIn,
  type StepContent,
} from '../../../../shared/domain/campaigns/flow-content';
import type { StepType } from '../../../../shared/domain/campaigns/flow';
import { failure } from '../../../support/flows';

const invalid = (message: string) => ({ kind: 'validation', message });

describe('checkPlaceholders', () => {
  it.each([
    'Hi {{first_name}} {{last_name}}, {{job_title}} at {{company_name}} in {{location}}',
    'Hi {{ first_name }} and {{\tcompany_name\n}}',
    '{{custom.favourite_tool}} {{custom.Plan-2}} {{ custom.a }}',
    `{{custom.${'k'.repeat(64)}}}`,
    'no placeholders, { single } braces',
    'an unpaired {{ opening, then {{first_name}}',
    'a closing }} alone',
    '{{{first_name}}}',
  ])('accepts %j', (text) => {
    expect(() => checkPlaceholders('message_template', text)).not.toThrow();
  });

  it.each([
    ['Hi {{firstname}}', '{{firstname}}'],
    ['Hi {{ First_Name }}', '{{First_Name}}'],
    ['{{first name}}', '{{first name}}'],
    ['{{}}', '{{}}'],
    ['{{  }}', '{{}}'],
    ['{{custom.}}', '{{custom.}}'],
    ['{{custom.a.b}}', '{{custom.a.b}}'],
    ['{{custom.with space}}', '{{custom.with space}}'],
    [`{{custom.${'k'.repeat(65)}}}`, `{{custom.${'k'.repeat(65)}}}`],
    ['{{email}}', '{{email}}'],
    ['{{first_name}} then {{company}}', '{{company}}'],
  ])('refuses %j', (text, shown) => {
    expect(failure(() => checkPlaceholders('subject_line_b', text))).toEqual(invalid(`subject_line_b: unknown placeholder ${shown}`));
  });

  it('repeats at most 80 characters of an unknown name', () => {
    expect(failure(() => checkPlaceholders('message_template', `{{${'x'.repeat(500)}}}`))).toEqual(
      invalid(`message_template: unknown placeholder {{${'x'.repeat(80)}…}}`),
    );
  });

  it('lists the names a text uses, trimmed, in order', () => {
    expect(placeholdersIn('{{ first_name }}, {{custom.x}} and {{first_name}}')).toEqual(['first_name', 'custom.x', 'first_name']);
  });
});

describe('checkStepContent', () => {
  const email: StepContent = { subject_line: 'Hello {{first_name}}', message_template: 'Body', add_unsubscribe: true, delay_in_hours: 24 };

  it('accepts each type’s own fields at their limits', () => {
    expect(() => checkStepContent('EMAIL', email)).not.toThrow();
    expect(() =>
      checkStepContent('EMAIL', {
        subject_line: 's'.repeat(MAX_EMAIL_SUBJECT_LENGTH),
        subject_line_b: 's'.repeat(MAX_EMAIL_SUBJECT_LENGTH),
        message_template: 'm'.repeat(MAX_EMAIL_BODY_LENGTH),
        message_template_b: 'm'.repeat(MAX_EMAIL_BODY_LENGTH),
        delay_in_hours: MAX_DELAY_HOURS,
      }),
    ).not.toThrow();
    const invite = { message_template: 'i'.repeat(300), message_template_b: 'i'.repeat(300), add_unsubscribe: false };
    expect(() => checkStepContent('NETWORK_INVITE', invite)).not.toThrow();
    expect(() => checkStepContent('NETWORK_INVITE', {})).not.toThrow();
    const message = { message_template: 'n'.repeat(8000), subject_line: '', subject_line_b: null, delay_in_hours: 0 };
    expect(() => checkStepContent('NETWORK_MESSAGE', message)).not.toThrow();
  });

  it('documents the limits', () => {
    const limits = [MAX_INVITE_MESSAGE_LENGTH, MAX_NETWORK_MESSAGE_LENGTH, MAX_EMAIL_SUBJECT_LENGTH, MAX_EMAIL_BODY_LENGTH, MAX_DELAY_HOURS];
    expect(limits).toEqual([300, 8000, 500, 50_000, 8760]);
  });

  it.each<[string, StepType, StepContent]>([
    ['message_template must be at most 300 characters for NETWORK_INVITE steps', 'NETWORK_INVITE', { message_template: 'i'.repeat(301) }],
    ['message_template_b must be at most 300 characters for NETWORK_INVITE steps', 'NETWORK_INVITE', { message_template_b: 'i'.repeat(301) }],
    // An emoji is two UTF-16 units.
    ['message_template must be at most 300 characters for NETWORK_INVITE steps', 'NETWORK_INVITE', { message_template: `${'i'.repeat(299)}👋` }],
    ['message_template must be at most 8000 characters for NETWORK_MESSAGE steps', 'NETWORK_MESSAGE', { message_template: 'n'.repeat(8001) }],
    ['message_template_b must be at most 8000 characters for NETWORK_MESSAGE steps', 'NETWORK_MESSAGE', { message_template: 'Hi', message_template_b: 'n'.repeat(8001) }],
    ['message_template is required for NETWORK_MESSAGE steps', 'NETWORK_MESSAGE', {}],
    ['message_template is required for NETWORK_MESSAGE steps', 'NETWORK_MESSAGE', { message_template: '  ' }],
    ['message_template is required for EMAIL steps', 'EMAIL', { subject_line: 'Hi' }],
    ['subject_line must be at most 500 characters for EMAIL steps', 'EMAIL', { ...email, subject_line: 's'.repeat(501) }],
    ['subject_line_b must be at most 500 characters for EMAIL steps', 'EMAIL', { ...email, subject_line_b: 's'.repeat(501) }],
    ['message_template must be at most 50000 characters for EMAIL steps', 'EMAIL', { ...email, message_template: 'm'.repeat(50_001) }],
    ['message_template_b must be at most 50000 characters for EMAIL steps', 'EMAIL', { ...email, message_template_b: 'm'.repeat(50_001) }],
    ['subject_line is required for EMAIL steps', 'EMAIL', { message_template: 'Body' }],
    ['subject_line is required for EMAIL steps', 'EMAIL', { subject_line: null }],
    ['subject_line is required for EMAIL steps', 'EMAIL', { subject_line: '' }],
    ['subject_line is required for EMAIL steps', 'EMAIL', { subject_line: '   ' }],
    ['subject_line is only available for EMAIL steps', 'NETWORK_MESSAGE', { subject_line: 'Hi' }],
    ['subject_line_b is only available for EMAIL steps', 'NETWORK_INVITE', { subject_line_b: 'Hi' }],
    ['add_unsubscribe is only available for EMAIL steps', 'NETWORK_INVITE', { add_unsubscribe: true }],
    ['delay_in_hours must be an integer from 0 to 8760', 'EMAIL', { ...email, delay_in_hours: -1 }],
    ['delay_in_hours must be an integer from 0 to 8760', 'EMAIL', { ...email, delay_in_hours: 8761 }],
    ['delay_in_hours must be an integer from 0 to 8760', 'NETWORK_MESSAGE', { delay_in_hours: 1.5 }],
    ['delay_in_hours must be an integer from 0 to 8760', 'NETWORK_MESSAGE', { delay_in_hours: Number.NaN }],
    ['subject_line: unknown placeholder {{name}}', 'EMAIL', { ...email, subject_line: 'Hi {{name}}' }],
    ['subject_line_b: unknown placeholder {{name}}', 'EMAIL', { ...email, subject_line_b: 'Hi {{name}}' }],
    ['message_template: unknown placeholder {{custom.}}', 'EMAIL', { ...email, message_template: '{{ custom. }}' }],
    ['message_template_b: unknown placeholder {{title}}', 'NETWORK_INVITE', { message_template_b: '{{title}}' }],
  ])('answers %j (%s)', (message, type, content) => {
    expect(failure(() => checkStepContent(type, content))).toEqual(invalid(message));
  });

  it('gives the first step no delay and the others a day', () => {
    expect(defaultDelay(true)).toBe(0);
    expect(defaultDelay(false)).toBe(24);
  });
});
