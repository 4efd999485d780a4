import { expect } from 'vitest';
import type { ManualClock } from '../../../shared/time/clock';
import { type ApiResponse, type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

export interface StepView {
  id: number;
  step_type: string;
  subject_line: string;
  message_template: string;
  subject_line_b: string;
  message_template_b: string;
  delay_in_hours: number;
  add_unsubscribe: boolean;
  parent_step_id: number | null;
  parent_condition_id: number | null;
  branch: 'YES' | 'NO' | null;
  child_step_id: number | null;
  child_condition_id: number | null;
  created_at: string;
  updated_at: string;
}
export interface ConditionView {
  id: number;
  condition_type: string;
  delay_in_hours: number;
  parent_step_id: number | null;
  yes_child_step_id: number | null;
  no_child_step_id: number | null;
  created_at: string;
  updated_at: string;
}
export interface DetailView {
  id: number;
  status: string;
  updated_at: string;
  steps: StepView[];
  conditions: ConditionView[];
  first_step: StepView | null;
  first_condition: ConditionView | null;
  [key: string]: unknown;
}
export interface Answer {
  success: boolean;
  step: StepView;
  condition: ConditionView;
  campaign: DetailView;
  steps: StepView[];
  error?: string;
}

export const STEP_FIELDS =
  'step_type, message_template, subject_line, message_template_b, subject_line_b, delay_in_hours, add_unsubscribe, parent_step_id, parent_condition_id, branch';
export const PATCH_FIELDS =
  'step_type, message_template, subject_line, message_template_b, subject_line_b, delay_in_hours, add_unsubscribe, parent_step_id, parent_condition_id, branch, child_step_id, child_condition_id, id, created_at, updated_at';
export const ACTIVE_REFUSAL = 'The flow of a campaign that is ACTIVE cannot change; pause it first';

/** Alice (with a key and a mailbox) and Bob (a key) on a stack of their own. */
export async function startFlowWorld(clock: ManualClock): Promise<{ stack: TestStack; alice: SignedUpUser; aliceKey: string; bobKey: string; mailboxId: number }> {
  const stack = await startTestStack({ rateLimitPerMinute: 100_000, clock });
  const alice = await signUp(stack);
  const aliceKey = (await createKey(stack, alice)).key;
  const bobKey = (await createKey(stack, await signUp(stack))).key;
  const mailbox = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: aliceKey, body: { provider_account_id: 'sbx-mailbox-dev' } });
  expect(mailbox.status, mailbox.text).toBe(201);
  return { stack, alice, aliceKey, bobKey, mailboxId: mailbox.body.account.id };
}

/** The flow's calls, as Alice unless another key is given; `world` is read at each call (filled by the file's beforeAll). */
export function flowHelpers(world: () => { stack: TestStack; aliceKey: string }) {
  const call = (method: string, path: string, body?: unknown, apiKey = world().aliceKey) =>
    world().stack.call<Answer>(method, path, { apiKey, ...(body === undefined ? {} : { body }) });
  const campaign = async (name: string, apiKey = world().aliceKey): Promise<number> => {
    const created = await world().stack.call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { apiKey, body: { name } });
    expect(created.status, created.text).toBe(201);
    return created.body.campaign.id;
  };
  const steps = (cid: number) => `/public/campaigns/${cid}/steps/`;
  const stepPath = (cid: number, id: number | string) => `/public/campaigns/${cid}/steps/${id}/`;
  const conditions = (cid: number) => `/public/campaigns/${cid}/conditions/`;
  const conditionPath = (cid: number, id: number | string) => `/public/campaigns/${cid}/conditions/${id}/`;
  const email = (extra: Record<string, unknown> = {}) => ({ step_type: 'EMAIL', subject_line: 'Hi {{first_name}}', message_template: 'Hello', ...extra });
  const message = (extra: Record<string, unknown> = {}) => ({ step_type: 'NETWORK_MESSAGE', message_template: 'Hi {{first_name}}', ...extra });

  /** Adds a step and answers its id (201 expected). */
  const addStep = async (cid: number, body: Record<string, unknown>, apiKey = world().aliceKey): Promise<number> => {
    const added = await call('POST', steps(cid), body, apiKey);
    expect(added.status, added.text).toBe(201);
    return added.body.step.id;
  };
  const addCondition = async (cid: number, body: Record<string, unknown>): Promise<number> => {
    const added = await call('POST', conditions(cid), body);
    expect(added.status, added.text).toBe(201);
    return added.body.condition.id;
  };
  const detail = async (cid: number, apiKey = world().aliceKey): Promise<DetailView> => {
    const read = await world().stack.call<{ campaign: DetailView }>('GET', `/public/campaigns/${cid}/`, { apiKey });
    expect(read.status, read.text).toBe(200);
    return read.body.campaign;
  };
  /** Each step as `id -> [parent step, parent condition, branch, child step, child condition]`, in flow order. */
  const wiring = (view: DetailView) =>
    view.steps.map((s) => [s.id, s.parent_step_id, s.parent_condition_id, s.branch, s.child_step_id, s.child_condition_id]);
  const expectError = (response: ApiResponse<Answer>, status: number, error: string) => {
    expect({ status: response.status, body: response.body }).toEqual({ status, body: { error } });
  };
  return { call, campaign, steps, stepPath, conditions, conditionPath, email, message, addStep, addCondition, detail, wiring, expectError };
}
