import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { anId } from '../../support/formats';
import type { SignedUpUser, TestStack } from '../../support/test-stack';
import { STEP_FIELDS, flowHelpers, startFlowWorld } from './flow-helpers';

/** A campaign flow over HTTP: adding steps and conditions, their content rules and placement. Changes: flow-changes.test.ts; statuses and limits: flow-status.test.ts. */
describe('a campaign flow: steps and conditions over HTTP', () => {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  let stack: TestStack;
  let alice: SignedUpUser;
  let aliceKey: string;
  const at = () => clock.now().toISOString();
  const { call, campaign, steps, stepPath, conditions, conditionPath, email, message, addStep, addCondition, detail, wiring, expectError } = flowHelpers(() => ({ stack, aliceKey }));

  beforeAll(async () => {
    ({ stack, alice, aliceKey } = await startFlowWorld(clock));
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
      // null is missing, as when left out (docs/api.md).
      [{ step_type: null, message_template: 'Hi' }, 'step_type is required'],
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
      [{ condition_type: null }, 400, 'condition_type is required'],
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

});
