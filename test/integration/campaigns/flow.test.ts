import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { resolveNode } from '../../../shared/domain/campaigns/flow';
import { ManualClock } from '../../../shared/time/clock';
import { anId } from '../../support/formats';
import { type ApiResponse, type SignedUpUser, type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

interface StepView {
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
interface ConditionView {
  id: number;
  condition_type: string;
  delay_in_hours: number;
  parent_step_id: number | null;
  yes_child_step_id: number | null;
  no_child_step_id: number | null;
  created_at: string;
  updated_at: string;
}
interface DetailView {
  id: number;
  status: string;
  updated_at: string;
  steps: StepView[];
  conditions: ConditionView[];
  first_step: StepView | null;
  first_condition: ConditionView | null;
  [key: string]: unknown;
}
interface Answer {
  success: boolean;
  step: StepView;
  condition: ConditionView;
  campaign: DetailView;
  steps: StepView[];
  error?: string;
}

const STEP_FIELDS =
  'step_type, message_template, subject_line, message_template_b, subject_line_b, delay_in_hours, add_unsubscribe, parent_step_id, parent_condition_id, branch';
const PATCH_FIELDS =
  'step_type, message_template, subject_line, message_template_b, subject_line_b, delay_in_hours, add_unsubscribe, parent_step_id, parent_condition_id, branch, child_step_id, child_condition_id, id, created_at, updated_at';
const ACTIVE_REFUSAL = 'The flow of a campaign that is ACTIVE cannot change; pause it first';

describe('a campaign flow: steps and conditions over HTTP', () => {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  let stack: TestStack;
  let alice: SignedUpUser;
  let aliceKey: string;
  let bobKey: string;
  let mailboxId: number;

  const at = () => clock.now().toISOString();
  const call = (method: string, path: string, body?: unknown, apiKey = aliceKey) =>
    stack.call<Answer>(method, path, { apiKey, ...(body === undefined ? {} : { body }) });
  const campaign = async (name: string, apiKey = aliceKey): Promise<number> => {
    const created = await stack.call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { apiKey, body: { name } });
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
  const addStep = async (cid: number, body: Record<string, unknown>, apiKey = aliceKey): Promise<number> => {
    const added = await call('POST', steps(cid), body, apiKey);
    expect(added.status, added.text).toBe(201);
    return added.body.step.id;
  };
  const addCondition = async (cid: number, body: Record<string, unknown>): Promise<number> => {
    const added = await call('POST', conditions(cid), body);
    expect(added.status, added.text).toBe(201);
    return added.body.condition.id;
  };
  const detail = async (cid: number, apiKey = aliceKey): Promise<DetailView> => {
    const read = await stack.call<{ campaign: DetailView }>('GET', `/public/campaigns/${cid}/`, { apiKey });
    expect(read.status, read.text).toBe(200);
    return read.body.campaign;
  };
  /** Each step as `id -> [parent step, parent condition, branch, child step, child condition]`, in flow order. */
  const wiring = (view: DetailView) =>
    view.steps.map((s) => [s.id, s.parent_step_id, s.parent_condition_id, s.branch, s.child_step_id, s.child_condition_id]);
  const expectError = (response: ApiResponse<Answer>, status: number, error: string) => {
    expect({ status: response.status, body: response.body }).toEqual({ status, body: { error } });
  };

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, clock });
    alice = await signUp(stack);
    aliceKey = (await createKey(stack, alice)).key;
    bobKey = (await createKey(stack, await signUp(stack))).key;
    const mailbox = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', {
      apiKey: aliceKey,
      body: { provider_account_id: 'sbx-mailbox-dev' },
    });
    expect(mailbox.status, mailbox.text).toBe(201);
    mailboxId = mailbox.body.account.id;
  });
  afterAll(async () => stack?.stop());

  it('adds a first step at the root (no delay) and then appends (a day later), answering the step and the detail', async () => {
    const cid = await campaign('First steps');
    clock.advance(60_000);
    const first = await call('POST', steps(cid), email({ subject_line_b: 'Hey {{ first_name }}', message_template_b: 'Hey', add_unsubscribe: true }));
    expect(first.status, first.text).toBe(201);
    const firstStep = {
      id: anId(),
      step_type: 'EMAIL',
      subject_line: 'Hi {{first_name}}',
      message_template: 'Hello',
      subject_line_b: 'Hey {{ first_name }}',
      message_template_b: 'Hey',
      delay_in_hours: 0,
      add_unsubscribe: true,
      parent_step_id: null,
      parent_condition_id: null,
      branch: null,
      child_step_id: null,
      child_condition_id: null,
      created_at: at(),
      updated_at: at(),
    };
    expect(first.body).toEqual({
      success: true,
      step: firstStep,
      campaign: {
        id: cid,
        name: 'First steps',
        status: 'DRAFT',
        workspace_id: alice.workspaceId,
        timezone: 'Europe/Amsterdam',
        language: 'en',
        email_max_messages: 40,
        network_max_messages: 100,
        network_max_connections: 50,
        sending_window: {},
        account_ids: [],
        stop_on_company_reply: false,
        prospect_count: 0,
        created_at: '2026-11-23T10:00:00.000Z',
        updated_at: at(),
        accounts: [],
        steps: [firstStep],
        conditions: [],
        first_step: firstStep,
        first_condition: null,
      },
    });
    const firstId = first.body.step.id;

    const second = await call('POST', steps(cid), { step_type: 'NETWORK_INVITE', message_template: 'Hi {{first_name}}, {{custom.hook}}' });
    expect(second.status, second.text).toBe(201);
    const secondStep = {
      ...firstStep,
      id: anId(),
      step_type: 'NETWORK_INVITE',
      subject_line: '',
      message_template: 'Hi {{first_name}}, {{custom.hook}}',
      subject_line_b: '',
      message_template_b: '',
      delay_in_hours: 24,
      add_unsubscribe: false,
      parent_step_id: firstId,
    };
    expect(second.body.step).toEqual(secondStep);
    expect(second.body.campaign.steps).toEqual([{ ...firstStep, child_step_id: second.body.step.id }, secondStep]);

    // A given delay wins over the default, also for the first step.
    const other = await campaign('Given delay');
    expect((await call('POST', steps(other), email({ delay_in_hours: 5 }))).body.step.delay_in_hours).toBe(5);
    expect((await call('POST', steps(other), email({ delay_in_hours: 0 }))).body.step.delay_in_hours).toBe(0);

    // Reads: one step, the steps in order, the detail.
    const one = await call('GET', stepPath(cid, firstId));
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, step: { ...firstStep, child_step_id: second.body.step.id } });
    const all = await call('GET', steps(cid));
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ success: true, steps: second.body.campaign.steps });
    expect(await detail(cid)).toEqual(second.body.campaign);
  });

  it('applies the content rules: subject for EMAIL, lengths per type, known placeholders only, EMAIL-only fields', async () => {
    const cid = await campaign('Content rules');
    const cases: [Record<string, unknown>, string][] = [
      [{ step_type: 'EMAIL', message_template: 'Hello' }, 'subject_line is required for EMAIL steps'],
      [email({ subject_line: '   ' }), 'subject_line is required for EMAIL steps'],
      [{ step_type: 'NETWORK_INVITE', message_template: 'i'.repeat(301) }, 'message_template must be at most 300 characters for NETWORK_INVITE steps'],
      [{ step_type: 'NETWORK_INVITE', message_template_b: 'i'.repeat(301) }, 'message_template_b must be at most 300 characters for NETWORK_INVITE steps'],
      [message({ message_template: 'n'.repeat(8001) }), 'message_template must be at most 8000 characters for NETWORK_MESSAGE steps'],
      [email({ message_template: 'Hi {{email}}' }), 'message_template: unknown placeholder {{email}}'],
      [email({ subject_line: 'Hi {{ First_Name }}' }), 'subject_line: unknown placeholder {{First_Name}}'],
      [email({ subject_line_b: '{{custom.}}' }), 'subject_line_b: unknown placeholder {{custom.}}'],
      [message({ subject_line: 'Hi' }), 'subject_line is only available for EMAIL steps'],
      [{ step_type: 'NETWORK_INVITE', add_unsubscribe: true }, 'add_unsubscribe is only available for EMAIL steps'],
      [{ message_template: 'Hi' }, 'step_type is required'],
      [{ step_type: 'NETWORK_VISIT' }, 'step_type must be one of EMAIL, NETWORK_INVITE, NETWORK_MESSAGE'],
      [email({ delay_in_hours: -1 }), 'delay_in_hours must be an integer from 0 to 8760'],
      [email({ delay_in_hours: 1.5 }), 'delay_in_hours must be an integer from 0 to 8760'],
      [email({ delay_in_hours: 8761 }), 'delay_in_hours must be an integer from 0 to 8760'],
      [email({ delay_in_hours: '24' }), 'delay_in_hours must be an integer from 0 to 8760'],
      [email({ message_template: 42 }), 'message_template must be a string'],
      [email({ add_unsubscribe: 'yes' }), 'add_unsubscribe must be a boolean'],
      [email({ parent_step_id: 0 }), 'parent_step_id must be a positive integer id'],
      [email({ parent_step_id: '12' }), 'parent_step_id must be a positive integer id'],
      [email({ parent_condition_id: 2.5 }), 'parent_condition_id must be a positive integer id'],
      [email({ branch: 'MAYBE' }), 'branch must be YES or NO'],
      [email({ branch: 'YES' }), 'branch needs parent_condition_id'],
      [email({ parent_step_id: 1, parent_condition_id: 2 }), 'parent_step_id and parent_condition_id cannot both be set'],
      [email({ colour: 'red' }), `colour is not a field of a new step (fields: ${STEP_FIELDS})`],
      [email({ id: 5 }), `id is not a field of a new step (fields: ${STEP_FIELDS})`],
    ];
    for (const [body, error] of cases) expectError(await call('POST', steps(cid), body), 400, error);
    expect((await detail(cid)).steps).toEqual([]);

    // At the limits, every placeholder the docs name, null as "none".
    const invite = await call('POST', steps(cid), { step_type: 'NETWORK_INVITE', message_template: `${'i'.repeat(299)}.`, subject_line: '' });
    expect(invite.status, invite.text).toBe(201);
    const long = await call('POST', steps(cid), message({ message_template: 'n'.repeat(8000), parent_step_id: null, branch: null }));
    expect(long.status, long.text).toBe(201);
    const placeholders = '{{first_name}} {{last_name}} {{job_title}} {{company_name}} {{location}} {{custom.favourite_tool}}';
    const all = await call('POST', steps(cid), email({ subject_line: placeholders, message_template: placeholders, message_template_b: null }));
    expect(all.status, all.text).toBe(201);
    expect(all.body.step).toMatchObject({ subject_line: placeholders, message_template: placeholders, message_template_b: '' });
    // Two email bodies at their limit in 3-byte characters: a body over the usual 256 KB, accepted.
    const euros = '€'.repeat(50_000);
    const big = await call('POST', steps(cid), email({ message_template: euros, message_template_b: euros }));
    expect(big.status, big.text.slice(0, 200)).toBe(201);
    expect(big.body.step.message_template_b).toBe(euros);
  });

  it('places steps under a step, on a condition’s free branch (YES first, 409 when none), inserts into taken slots and appends through YES', async () => {
    const cid = await campaign('Branching');
    const s1 = await addStep(cid, { step_type: 'NETWORK_INVITE', message_template: 'Hi' });
    const c = await addCondition(cid, { condition_type: 'ACCEPTED_INVITE', parent_step_id: s1, delay_in_hours: 72 });
    const yes = await addStep(cid, message({ parent_condition_id: c }));
    const no = await addStep(cid, email({ parent_condition_id: c }));
    expectError(await call('POST', steps(cid), email({ parent_condition_id: c })), 409, `Condition ${c} has no free branch`);
    // Without a parent: after the main path's last node, which runs through the YES branch.
    const tail = await addStep(cid, message());
    // Under a step whose slot is taken: between the step and its child (here, the condition).
    const between = await addStep(cid, message({ parent_step_id: s1 }));
    // On a taken branch it names: between the condition and that branch's step.
    const beforeNo = await addStep(cid, email({ parent_condition_id: c, branch: 'NO' }));

    const view = await detail(cid);
    expect(wiring(view)).toEqual([
      [s1, null, null, null, between, null],
      [between, s1, null, null, null, c],
      [yes, null, c, 'YES', tail, null],
      [tail, yes, null, null, null, null],
      [beforeNo, null, c, 'NO', no, null],
      [no, beforeNo, null, null, null, null],
    ]);
    expect(view.conditions).toEqual([
      {
        id: c,
        condition_type: 'ACCEPTED_INVITE',
        delay_in_hours: 72,
        parent_step_id: between,
        yes_child_step_id: yes,
        no_child_step_id: beforeNo,
        created_at: at(),
        updated_at: at(),
      },
    ]);
    expect(view.first_step?.id).toBe(s1);
    expect(view.first_condition).toBeNull();
    expect((await call('GET', steps(cid))).body.steps.map((s) => s.id)).toEqual([s1, between, yes, tail, beforeNo, no]);
  });

  it('adds conditions as the spec describes: after the last step, under a step, moving steps onto its branches', async () => {
    const cid = await campaign('Conditions');
    // An empty flow: the condition is the root (no delay by default).
    const root = await call('POST', conditions(cid), { condition_type: 'HAS_EMAIL' });
    expect(root.status, root.text).toBe(201);
    const rootCondition = {
      id: anId(),
      condition_type: 'HAS_EMAIL',
      delay_in_hours: 0,
      parent_step_id: null,
      yes_child_step_id: null,
      no_child_step_id: null,
      created_at: at(),
      updated_at: at(),
    };
    expect(root.body).toEqual({
      success: true,
      condition: rootCondition,
      campaign: expect.objectContaining({ id: cid, steps: [], conditions: [rootCondition], first_step: null, first_condition: rootCondition }),
    });
    const c0 = root.body.condition.id;
    const a = await addStep(cid, email());
    const b = await addStep(cid, message({ parent_condition_id: c0 }));
    expect((await call('GET', conditionPath(cid, c0))).body).toEqual({
      success: true,
      condition: { ...rootCondition, yes_child_step_id: a, no_child_step_id: b },
    });
    // The main path ends with step a: the new condition follows it (a day later by default).
    const c1 = await call('POST', conditions(cid), { condition_type: 'HAS_EMAIL_PREMIUM' });
    expect(c1.status, c1.text).toBe(201);
    expect(c1.body.condition).toMatchObject({ delay_in_hours: 24, parent_step_id: a, yes_child_step_id: null, no_child_step_id: null });
    // Now the main path ends with a condition: a condition cannot follow it without a parent step.
    expectError(
      await call('POST', conditions(cid), { condition_type: 'HAS_EMAIL' }),
      409,
      `The main path ends with condition ${c1.body.condition.id}, and a condition cannot follow a condition; give parent_step_id`,
    );
    // Under step b (on c0's NO branch), moving a fresh step x onto its NO branch.
    const x = await addStep(cid, message({ parent_condition_id: c1.body.condition.id }));
    const c2 = await call('POST', conditions(cid), { condition_type: 'ALREADY_CONNECTED', parent_step_id: b, no_child_step_id: x, delay_in_hours: 2 });
    expect(c2.status, c2.text).toBe(201);
    expect(c2.body.condition).toMatchObject({ delay_in_hours: 2, parent_step_id: b, yes_child_step_id: null, no_child_step_id: x });
    expect(c2.body.campaign.conditions.find((cond) => cond.id === c1.body.condition.id)).toMatchObject({ yes_child_step_id: null });

    const cases: [Record<string, unknown>, number, string][] = [
      [{}, 400, 'condition_type is required'],
      [{ condition_type: 'OPENED_EMAIL' }, 400, 'condition_type must be one of HAS_EMAIL, HAS_EMAIL_PREMIUM, ACCEPTED_INVITE, ALREADY_CONNECTED'],
      [{ condition_type: 'HAS_EMAIL', delay_in_hours: -2 }, 400, 'delay_in_hours must be an integer from 0 to 8760'],
      [{ condition_type: 'HAS_EMAIL', parent_step_id: 'a' }, 400, 'parent_step_id must be a positive integer id'],
      [{ condition_type: 'HAS_EMAIL', yes_child_step_id: 0 }, 400, 'yes_child_step_id must be a positive integer id'],
      [{ condition_type: 'HAS_EMAIL', branch: 'YES' }, 400, 'branch is not a field of a new condition (fields: condition_type, delay_in_hours, parent_step_id, yes_child_step_id, no_child_step_id)'],
      [{ condition_type: 'HAS_EMAIL', parent_step_id: 999_999_999 }, 400, 'parent_step_id: step 999999999 not found in this campaign'],
      [{ condition_type: 'HAS_EMAIL', parent_step_id: c0 }, 400, 'parent_step_id must be a step'],
      [{ condition_type: 'HAS_EMAIL', parent_step_id: a, yes_child_step_id: b, no_child_step_id: b }, 400, 'yes_child_step_id and no_child_step_id must differ'],
      [{ condition_type: 'HAS_EMAIL', parent_step_id: x, yes_child_step_id: b }, 400, 'yes_child_step_id would make a cycle'],
      [{ condition_type: 'HAS_EMAIL', parent_step_id: a }, 409, `parent_step_id: step ${a} is followed by condition ${c1.body.condition.id}, and a condition cannot follow a condition`],
      [{ condition_type: 'ACCEPTED_INVITE', parent_step_id: x }, 400, 'ACCEPTED_INVITE needs a NETWORK_INVITE step before it'],
    ];
    for (const [body, status, error] of cases) expectError(await call('POST', conditions(cid), body), status, error);
  });

  it('refuses unknown ids, another campaign’s ids and cycles with a 400 naming the field', async () => {
    const cid = await campaign('References');
    const other = await campaign('Elsewhere');
    const foreignStep = await addStep(other, email());
    const foreignCondition = await addCondition(other, { condition_type: 'HAS_EMAIL' });
    const s1 = await addStep(cid, email());
    const s2 = await addStep(cid, email());
    const s3 = await addStep(cid, email());
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL', parent_step_id: s3 });
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', steps(cid), email({ parent_step_id: foreignStep }), `parent_step_id: step ${foreignStep} not found in this campaign`],
      ['POST', steps(cid), email({ parent_condition_id: foreignCondition }), `parent_condition_id: condition ${foreignCondition} not found in this campaign`],
      ['POST', steps(cid), email({ parent_condition_id: s1 }), 'parent_condition_id must be a condition'],
      ['POST', conditions(cid), { condition_type: 'HAS_EMAIL', yes_child_step_id: foreignStep }, `yes_child_step_id: step ${foreignStep} not found in this campaign`],
      ['POST', conditions(cid), { condition_type: 'HAS_EMAIL', parent_step_id: foreignStep }, `parent_step_id: step ${foreignStep} not found in this campaign`],
      ['PATCH', stepPath(cid, s2), { parent_step_id: foreignStep }, `parent_step_id: step ${foreignStep} not found in this campaign`],
      ['PATCH', stepPath(cid, s2), { child_step_id: 999_999_999 }, 'child_step_id: step 999999999 not found in this campaign'],
      ['PATCH', stepPath(cid, s2), { child_condition_id: foreignCondition }, `child_condition_id: condition ${foreignCondition} not found in this campaign`],
      ['PATCH', stepPath(cid, s2), { parent_step_id: s3 }, 'parent_step_id would make a cycle'],
      ['PATCH', stepPath(cid, s2), { parent_step_id: s2 }, 'parent_step_id would make a cycle'],
      ['PATCH', stepPath(cid, s3), { child_step_id: s1 }, 'child_step_id would make a cycle'],
      ['PATCH', stepPath(cid, s2), { parent_condition_id: c }, 'parent_condition_id would make a cycle'],
    ];
    for (const [method, path, body, error] of cases) expectError(await call(method, path, body), 400, error);
    expect(wiring(await detail(cid))).toEqual([
      [s1, null, null, null, s2, null],
      [s2, s1, null, null, s3, null],
      [s3, s2, null, null, null, c],
    ]);
  });

  it('changes a step’s texts, delay, A/B variant and unsubscribe flag, judged as stored', async () => {
    const cid = await campaign('Edits');
    const s1 = await addStep(cid, email());
    const s2 = await addStep(cid, { step_type: 'NETWORK_INVITE', message_template: 'Hi' });
    const createdAt = at();
    clock.advance(60_000);
    const changed = await call('PATCH', stepPath(cid, s1), {
      subject_line: 'New {{company_name}}',
      subject_line_b: 'B {{job_title}}',
      message_template_b: 'Body B',
      delay_in_hours: 3,
      add_unsubscribe: true,
    });
    expect(changed.status, changed.text).toBe(200);
    const step = {
      id: s1,
      step_type: 'EMAIL',
      subject_line: 'New {{company_name}}',
      message_template: 'Hello',
      subject_line_b: 'B {{job_title}}',
      message_template_b: 'Body B',
      delay_in_hours: 3,
      add_unsubscribe: true,
      parent_step_id: null,
      parent_condition_id: null,
      branch: null,
      child_step_id: s2,
      child_condition_id: null,
      created_at: createdAt,
      updated_at: at(),
    };
    expect(changed.body).toEqual({ success: true, step, campaign: expect.objectContaining({ id: cid, first_step: step }) });
    expect((await call('GET', stepPath(cid, s1))).body.step).toEqual(step);

    // null clears a text; the same type is accepted; an empty PATCH changes nothing.
    clock.advance(60_000);
    const cleared = await call('PATCH', stepPath(cid, s1), { subject_line_b: null, message_template_b: '', step_type: 'EMAIL' });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.step).toEqual({ ...step, subject_line_b: '', message_template_b: '', updated_at: at() });
    clock.advance(60_000);
    const same = await call('PATCH', stepPath(cid, s1), {});
    expect(same.status).toBe(200);
    expect(same.body.step).toEqual(cleared.body.step);

    const cases: [number, Record<string, unknown>, string][] = [
      [s1, { step_type: 'NETWORK_MESSAGE' }, 'step_type cannot be changed; delete the step and add a new one'],
      [s1, { subject_line: '' }, 'subject_line is required for EMAIL steps'],
      [s1, { subject_line: null }, 'subject_line is required for EMAIL steps'],
      [s1, { message_template: '{{firstname}}' }, 'message_template: unknown placeholder {{firstname}}'],
      [s2, { message_template: 'x'.repeat(301) }, 'message_template must be at most 300 characters for NETWORK_INVITE steps'],
      [s2, { subject_line: 'Hi' }, 'subject_line is only available for EMAIL steps'],
      [s2, { add_unsubscribe: true }, 'add_unsubscribe is only available for EMAIL steps'],
      [s1, { delay_in_hours: null }, 'delay_in_hours must be an integer from 0 to 8760'],
      [s1, { delay_in_hours: 9000 }, 'delay_in_hours must be an integer from 0 to 8760'],
      [s1, { parent_step_id: 0 }, 'parent_step_id must be a positive integer id'],
      // null is "none": s2 has a parent step, and a move names the new parent.
      [s2, { parent_step_id: null }, 'parent_step_id cannot be null: the step has one; move the step by naming its new parent, or delete it'],
      [s1, { child_step_id: null }, 'child_step_id cannot be null: the step has one; move the step by naming its new parent, or delete it'],
      [s1, { branch: 'NO' }, 'branch needs parent_condition_id'],
      [s1, { child_step_id: s2, child_condition_id: 5 }, 'child_step_id and child_condition_id cannot both be set'],
      [s1, { id: s2 }, 'id cannot be changed on a step'],
      [s1, { name: 'x' }, `name cannot be changed on a step (fields: ${PATCH_FIELDS})`],
    ];
    for (const [id, body, error] of cases) expectError(await call('PATCH', stepPath(cid, id), body), 400, error);
    expect((await call('GET', stepPath(cid, s1))).body.step).toEqual(cleared.body.step);

    // The step sent back exactly as read (its nulls, id and timestamps included) changes nothing;
    // with a new delay, only the delay.
    clock.advance(60_000);
    const asRead = (await call('GET', stepPath(cid, s2))).body.step as unknown as Record<string, unknown>;
    const sentBack = await call('PATCH', stepPath(cid, s2), asRead);
    expect(sentBack.status, sentBack.text).toBe(200);
    expect(sentBack.body.step).toEqual(asRead);
    const rootBack = await call('PATCH', stepPath(cid, s1), { ...cleared.body.step, delay_in_hours: 5 });
    expect(rootBack.status, rootBack.text).toBe(200);
    expect(rootBack.body.step).toEqual({ ...cleared.body.step, delay_in_hours: 5, updated_at: at() });
  });

  it('moves steps with the wiring fields: a new parent, a condition branch, a child, the root alone', async () => {
    const cid = await campaign('Moves');
    const s1 = await addStep(cid, email());
    const s2 = await addStep(cid, email());
    const s3 = await addStep(cid, email());
    const s4 = await addStep(cid, email());
    // s4 (childless) under s1, whose slot is taken: it goes in between.
    clock.advance(1000);
    const moved = await call('PATCH', stepPath(cid, s4), { parent_step_id: s1 });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.step).toMatchObject({ id: s4, parent_step_id: s1, child_step_id: s2, updated_at: at() });
    expect(wiring(moved.body.campaign)).toEqual([
      [s1, null, null, null, s4, null],
      [s4, s1, null, null, s2, null],
      [s2, s4, null, null, s3, null],
      [s3, s2, null, null, null, null],
    ]);
    // s2 has a child, so it cannot go into s1's taken slot.
    expectError(await call('PATCH', stepPath(cid, s2), { parent_step_id: s1 }), 409, `parent_step_id: step ${s1} already has a child`);
    // A condition under s2 takes s3 on its YES branch; s3 then moves to the NO branch.
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL', parent_step_id: s2 });
    expect(wiring(await detail(cid)).at(-1)).toEqual([s3, null, c, 'YES', null, null]);
    const toNo = await call('PATCH', stepPath(cid, s3), { parent_condition_id: c, branch: 'NO' });
    expect(toNo.status, toNo.text).toBe(200);
    expect(toNo.body.step).toMatchObject({ parent_condition_id: c, branch: 'NO' });
    // Naming the condition it is under, without a branch or with a null one, keeps its branch
    // (YES is free, but this is no move).
    for (const body of [{ parent_condition_id: c }, { parent_condition_id: c, branch: null, parent_step_id: null }]) {
      const kept = await call('PATCH', stepPath(cid, s3), body);
      expect(kept.status, kept.text).toBe(200);
      expect(kept.body.step).toEqual(toNo.body.step);
    }
    // The root moves alone: its child becomes the root.
    const root = await call('PATCH', stepPath(cid, s1), { parent_condition_id: c });
    expect(root.status, root.text).toBe(200);
    expect(root.body.campaign.first_step?.id).toBe(s4);
    expect(wiring(root.body.campaign)).toEqual([
      [s4, null, null, null, s2, null],
      [s2, s4, null, null, null, c],
      [s1, null, c, 'YES', null, null],
      [s3, null, c, 'NO', null, null],
    ]);
    // A child for a childless step: s3 takes s1 (with its subtree) as its child.
    const child = await call('PATCH', stepPath(cid, s3), { child_step_id: s1 });
    expect(child.status, child.text).toBe(200);
    expect(wiring(child.body.campaign)).toEqual([
      [s4, null, null, null, s2, null],
      [s2, s4, null, null, null, c],
      [s3, null, c, 'NO', s1, null],
      [s1, s3, null, null, null, null],
    ]);
    expectError(await call('PATCH', stepPath(cid, s4), { child_step_id: s1 }), 409, `child_step_id: step ${s4} already has a child`);
  });

  it('deletes steps relinking their child, makes a condition the root, and refuses a condition with children', async () => {
    const cid = await campaign('Deletes');
    const s1 = await addStep(cid, email());
    const s2 = await addStep(cid, email());
    const s3 = await addStep(cid, email());
    clock.advance(1000);
    const deleted = await call('DELETE', stepPath(cid, s2));
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ success: true, campaign: expect.objectContaining({ id: cid, updated_at: at() }) });
    expect(Object.keys(deleted.body)).toEqual(['success', 'campaign']);
    expect(wiring(deleted.body.campaign)).toEqual([
      [s1, null, null, null, s3, null],
      [s3, s1, null, null, null, null],
    ]);
    expectError(await call('GET', stepPath(cid, s2)), 404, 'Step not found');
    expectError(await call('DELETE', stepPath(cid, s2)), 404, 'Step not found');
    expectError(await call('PATCH', stepPath(cid, s2), { delay_in_hours: 1 }), 404, 'Step not found');

    // The first step's child is a condition: deleting the step makes the condition the root.
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL', parent_step_id: s1 });
    const no = await addStep(cid, email({ parent_condition_id: c, branch: 'NO' }));
    const first = await call('DELETE', stepPath(cid, s1));
    expect(first.status, first.text).toBe(200);
    expect(first.body.campaign.first_step).toBeNull();
    expect(first.body.campaign.first_condition).toMatchObject({ id: c, parent_step_id: null, yes_child_step_id: s3, no_child_step_id: no });
    expect(wiring(first.body.campaign)).toEqual([
      [s3, null, c, 'YES', null, null],
      [no, null, c, 'NO', null, null],
    ]);
    expectError(await call('DELETE', conditionPath(cid, c)), 409, `Condition ${c} has children; delete or move them first`);
    expect((await call('DELETE', stepPath(cid, s3))).status).toBe(200);
    expect((await call('DELETE', stepPath(cid, no))).status).toBe(200);
    const gone = await call('DELETE', conditionPath(cid, c));
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body.campaign).toMatchObject({ steps: [], conditions: [], first_step: null, first_condition: null });
    expectError(await call('GET', conditionPath(cid, c)), 404, 'Condition not found');
  });

  it('changes a condition’s delay and type (ACCEPTED_INVITE needs an invite before it); its wiring is the steps’', async () => {
    const cid = await campaign('Condition edits');
    const first = await addStep(cid, email());
    const c0 = await addCondition(cid, { condition_type: 'HAS_EMAIL', parent_step_id: first });
    const invite = await addStep(cid, { step_type: 'NETWORK_INVITE', parent_condition_id: c0 });
    const m = await addStep(cid, message({ parent_step_id: invite }));
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL', parent_step_id: m });
    const yes = await addStep(cid, message({ parent_condition_id: c }));
    clock.advance(1000);
    const changed = await call('PATCH', conditionPath(cid, c), { delay_in_hours: 48, condition_type: 'ACCEPTED_INVITE' });
    expect(changed.status, changed.text).toBe(200);
    const condition = {
      id: c,
      condition_type: 'ACCEPTED_INVITE',
      delay_in_hours: 48,
      parent_step_id: m,
      yes_child_step_id: yes,
      no_child_step_id: null,
      created_at: changed.body.condition.created_at,
      updated_at: at(),
    };
    expect(changed.body).toEqual({ success: true, condition, campaign: expect.objectContaining({ conditions: [expect.anything(), condition] }) });
    expect((await call('GET', conditionPath(cid, c))).body).toEqual({ success: true, condition });
    // The invite is the only one before the ACCEPTED_INVITE condition: it cannot go.
    expectError(
      await call('DELETE', stepPath(cid, invite)),
      409,
      `Deleting step ${invite} would leave ACCEPTED_INVITE condition ${c} without a NETWORK_INVITE step before it`,
    );
    const cases: [number, Record<string, unknown>, string][] = [
      [c0, { condition_type: 'ACCEPTED_INVITE' }, 'ACCEPTED_INVITE needs a NETWORK_INVITE step before it'],
      [c0, { condition_type: 'SOMETHING' }, 'condition_type must be one of HAS_EMAIL, HAS_EMAIL_PREMIUM, ACCEPTED_INVITE, ALREADY_CONNECTED'],
      [c0, { delay_in_hours: 8761 }, 'delay_in_hours must be an integer from 0 to 8760'],
      [c0, { parent_step_id: invite }, 'parent_step_id cannot be changed on a condition: move steps with PATCH .../steps/{step_id}/ (parent_condition_id and branch)'],
      [c0, { no_child_step_id: yes }, 'no_child_step_id cannot be changed on a condition: move steps with PATCH .../steps/{step_id}/ (parent_condition_id and branch)'],
      [c, { yes_child_step_id: null }, 'yes_child_step_id cannot be changed on a condition: move steps with PATCH .../steps/{step_id}/ (parent_condition_id and branch)'],
      [c, { no_child_step_id: yes }, 'no_child_step_id cannot be changed on a condition: move steps with PATCH .../steps/{step_id}/ (parent_condition_id and branch)'],
      [c, { parent_step_id: 'x' }, 'parent_step_id must be a positive integer id'],
      [c0, { name: 'x' }, 'name cannot be changed on a condition (fields: condition_type, delay_in_hours, parent_step_id, yes_child_step_id, no_child_step_id, id, created_at, updated_at)'],
      [c0, { id: c }, 'id cannot be changed on a condition'],
    ];
    for (const [id, body, error] of cases) expectError(await call('PATCH', conditionPath(cid, id), body), 400, error);
    // The same values change nothing, the wiring included: a client may send back what it read.
    clock.advance(1000);
    const same = await call('PATCH', conditionPath(cid, c), { delay_in_hours: 48, condition_type: 'ACCEPTED_INVITE' });
    expect(same.body.condition).toEqual(condition);
    const { id: _id, created_at: _created, updated_at: _updated, ...asRead } = condition;
    const sentBack = await call('PATCH', conditionPath(cid, c), asRead);
    expect(sentBack.status, sentBack.text).toBe(200);
    expect(sentBack.body.condition).toEqual(condition);
    // Whole, with its id and timestamps.
    const wholeBack = await call('PATCH', conditionPath(cid, c), condition);
    expect(wholeBack.status, wholeBack.text).toBe(200);
    expect(wholeBack.body.condition).toEqual(condition);
    // A delay change sent with the wiring as read.
    const delayOnly = await call('PATCH', conditionPath(cid, c), { ...asRead, delay_in_hours: 72 });
    expect(delayOnly.body.condition).toEqual({ ...condition, delay_in_hours: 72, updated_at: at() });
  });

  it('answers 404 for unknown, malformed, foreign or wrong-kind ids in the path', async () => {
    const cid = await campaign('Paths');
    const s = await addStep(cid, email());
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL' });
    const other = await campaign('Other paths');
    const otherStep = await addStep(other, email());
    const bobCampaign = await campaign('Bob’s', bobKey);
    const bobStep = await addStep(bobCampaign, email(), bobKey);
    const cases: [string, string, unknown, string][] = [
      ['GET', stepPath(cid, 999_999_999), undefined, 'Step not found'],
      ['GET', stepPath(cid, 'abc'), undefined, 'Step not found'],
      ['GET', stepPath(cid, 0), undefined, 'Step not found'],
      ['GET', stepPath(cid, c), undefined, 'Step not found'],
      ['GET', stepPath(cid, otherStep), undefined, 'Step not found'],
      ['PATCH', stepPath(cid, otherStep), { delay_in_hours: 1 }, 'Step not found'],
      ['DELETE', stepPath(cid, otherStep), undefined, 'Step not found'],
      ['GET', stepPath(cid, bobStep), undefined, 'Step not found'],
      ['GET', conditionPath(cid, s), undefined, 'Condition not found'],
      ['GET', conditionPath(cid, 'x'), undefined, 'Condition not found'],
      ['PATCH', conditionPath(cid, s), { delay_in_hours: 1 }, 'Condition not found'],
      ['DELETE', conditionPath(cid, s), undefined, 'Condition not found'],
      ['GET', steps(999_999_999), undefined, 'Campaign not found'],
      ['POST', steps(999_999_999), email(), 'Campaign not found'],
      ['GET', stepPath(999_999_999, s), undefined, 'Campaign not found'],
      ['POST', conditions(999_999_999), { condition_type: 'HAS_EMAIL' }, 'Campaign not found'],
      ['GET', '/public/campaigns/abc/steps/', undefined, 'Campaign not found'],
    ];
    for (const [method, path, body, error] of cases) expectError(await call(method, path, body), 404, error);
  });

  it('keeps flows to their workspace', async () => {
    const cid = await campaign('Isolated');
    const s = await addStep(cid, email());
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL' });
    const before = await detail(cid);
    const cases: [string, string, unknown][] = [
      ['GET', steps(cid), undefined],
      ['POST', steps(cid), email()],
      ['GET', stepPath(cid, s), undefined],
      ['PATCH', stepPath(cid, s), { subject_line: 'Mine' }],
      ['DELETE', stepPath(cid, s), undefined],
      ['POST', conditions(cid), { condition_type: 'HAS_EMAIL' }],
      ['GET', conditionPath(cid, c), undefined],
      ['PATCH', conditionPath(cid, c), { delay_in_hours: 1 }],
      ['DELETE', conditionPath(cid, c), undefined],
    ];
    for (const [method, path, body] of cases) expectError(await call(method, path, body, bobKey), 404, 'Campaign not found');
    // Bob's own campaign cannot reach Alice's nodes either.
    const bobs = await campaign('Bob’s reach', bobKey);
    expectError(await call('POST', steps(bobs), email({ parent_step_id: s }), bobKey), 400, `parent_step_id: step ${s} not found in this campaign`);
    expect(await detail(cid)).toEqual(before);
  });

  it('allows text edits while ACTIVE but not structure changes; PAUSED allows both, and waiting prospects follow a deleted step', async () => {
    const cid = await campaign('Running');
    const s1 = await addStep(cid, email());
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL', parent_step_id: s1 });
    const s2 = await addStep(cid, email({ parent_condition_id: c }));
    const s3 = await addStep(cid, email());
    const attached = await stack.call('PATCH', `/public/campaigns/${cid}/`, { apiKey: aliceKey, body: { account_ids: [mailboxId] } });
    expect(attached.status, attached.text).toBe(200);
    const activated = await stack.call<{ campaign: { status: string } }>('POST', `/public/campaigns/${cid}/activate/`, { apiKey: aliceKey });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body.campaign.status).toBe('ACTIVE');

    const refused: [string, string, unknown][] = [
      ['POST', steps(cid), email()],
      ['POST', steps(cid), email({ parent_step_id: s1 })],
      ['POST', conditions(cid), { condition_type: 'HAS_EMAIL', parent_step_id: s3 }],
      ['PATCH', stepPath(cid, s3), { parent_step_id: s1 }],
      ['PATCH', stepPath(cid, s2), { parent_condition_id: c, branch: 'NO', subject_line: 'Moved' }],
      ['PATCH', conditionPath(cid, c), { condition_type: 'HAS_EMAIL_PREMIUM' }],
      ['DELETE', stepPath(cid, s3), undefined],
      ['DELETE', conditionPath(cid, c), undefined],
    ];
    const before = await detail(cid);
    for (const [method, path, body] of refused) expectError(await call(method, path, body), 409, ACTIVE_REFUSAL);
    expect(await detail(cid)).toEqual(before);

    clock.advance(1000);
    const edited = await call('PATCH', stepPath(cid, s2), { subject_line: 'Updated while running', delay_in_hours: 12, message_template_b: 'B' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.step).toMatchObject({ subject_line: 'Updated while running', delay_in_hours: 12, message_template_b: 'B', updated_at: at() });
    expect(edited.body.campaign.status).toBe('ACTIVE');
    const delayed = await call('PATCH', conditionPath(cid, c), { delay_in_hours: 6, condition_type: 'HAS_EMAIL' });
    expect(delayed.status, delayed.text).toBe(200);
    expect(delayed.body.condition.delay_in_hours).toBe(6);
    // Wiring that names where the step already is changes nothing, so it is no structure change.
    const inPlace = await call('PATCH', stepPath(cid, s3), { parent_step_id: s2, message_template: 'Still here' });
    expect(inPlace.status, inPlace.text).toBe(200);
    expect(inPlace.body.step).toMatchObject({ parent_step_id: s2, message_template: 'Still here' });

    // Paused: the structure may change again. Prospects waiting on a deleted step move to its child.
    expect((await stack.call('POST', `/public/campaigns/${cid}/pause/`, { apiKey: aliceKey })).status).toBe(200);
    const removed = await call('DELETE', stepPath(cid, s2));
    expect(removed.status, removed.text).toBe(200);
    expect(wiring(removed.body.campaign)).toEqual([
      [s1, null, null, null, null, c],
      [s3, null, c, 'YES', null, null],
    ]);
    const repository = new DynamoCampaignRepository(stack.db, stack.tableName);
    const whereIs = async (ids: number[]) => {
      const stored = await repository.get(alice.workspaceId, cid);
      return ids.map((id) => (stored ? resolveNode(stored.flow, id) : 'no campaign'));
    };
    expect(await whereIs([s1, s2, s3])).toEqual([s1, s3, s3]);
    // s3 had no child: prospects waiting on it (or on s2) finish.
    expect((await call('DELETE', stepPath(cid, s3))).status).toBe(200);
    expect(await whereIs([s1, s2, s3])).toEqual([s1, null, null]);
    await addStep(cid, email({ parent_condition_id: c }));
  });

  it('makes an archived campaign’s flow read-only, reads still answering', async () => {
    const cid = await campaign('Archived');
    const s = await addStep(cid, email());
    const c = await addCondition(cid, { condition_type: 'HAS_EMAIL' });
    expect((await stack.call('POST', `/public/campaigns/${cid}/archive/`, { apiKey: aliceKey })).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', steps(cid), email()],
      ['PATCH', stepPath(cid, s), { subject_line: 'Too late' }],
      ['PATCH', stepPath(cid, s), {}],
      ['DELETE', stepPath(cid, s), undefined],
      ['POST', conditions(cid), { condition_type: 'HAS_EMAIL', parent_step_id: s }],
      ['PATCH', conditionPath(cid, c), { delay_in_hours: 3 }],
      ['DELETE', conditionPath(cid, c), undefined],
    ];
    for (const [method, path, body] of writes) expectError(await call(method, path, body), 409, 'Campaign is archived');
    expect((await call('GET', steps(cid))).body.steps.map((step) => step.id)).toEqual([s]);
    expect((await call('GET', stepPath(cid, s))).status).toBe(200);
    expect((await call('GET', conditionPath(cid, c))).status).toBe(200);
    expect((await detail(cid)).status).toBe('ARCHIVED');
  });

  it(`holds at most 50 steps and conditions per flow`, async () => {
    const cid = await campaign('Full');
    for (let i = 0; i < 49; i += 1) await addStep(cid, message());
    const condition = await addCondition(cid, { condition_type: 'HAS_EMAIL' });
    const full = "A campaign's flow has at most 50 steps and conditions; delete one before adding another";
    expectError(await call('POST', steps(cid), message({ parent_condition_id: condition })), 409, full);
    expectError(await call('POST', conditions(cid), { condition_type: 'HAS_EMAIL' }), 409, full);
    expect((await detail(cid)).steps).toHaveLength(49);
    expect((await call('DELETE', conditionPath(cid, condition))).status).toBe(200);
    expect((await call('POST', steps(cid), message())).status).toBe(201);
  });

  it('keeps concurrent changes of one flow: each add lands, and a text edit racing a move is kept', async () => {
    const cid = await campaign('Races');
    const root = await addStep(cid, email());
    const added = await Promise.all([1, 2, 3].map(() => call('POST', steps(cid), message({ parent_step_id: root }))));
    expect(added.map((response) => response.status)).toEqual([201, 201, 201]);
    const view = await detail(cid);
    expect(view.steps.map((s) => s.id).sort()).toEqual([root, ...added.map((response) => response.body.step.id)].sort());
    // The last step is childless, so it may move into root's taken slot.
    const b = view.steps.at(-1)?.id as number;
    const [text, move] = await Promise.all([
      call('PATCH', stepPath(cid, b), { message_template: 'Edited in the race' }),
      call('PATCH', stepPath(cid, b), { parent_step_id: root, message_template_b: 'Moved in the race' }),
    ]);
    expect([text.status, move.status], `${text.text} ${move.text}`).toEqual([200, 200]);
    const after = (await call('GET', stepPath(cid, b))).body.step;
    expect(after).toMatchObject({ message_template: 'Edited in the race', message_template_b: 'Moved in the race', parent_step_id: root });
  });
});
