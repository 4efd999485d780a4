import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import type { TestStack } from '../../support/test-stack';
import { PATCH_FIELDS, flowHelpers, startFlowWorld } from './flow-helpers';

/** A campaign flow over HTTP: changing, moving and deleting steps and conditions, ids in the path, workspaces. */
describe('a campaign flow: changes over HTTP', () => {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  let stack: TestStack;
  let aliceKey: string;
  let bobKey: string;
  const at = () => clock.now().toISOString();
  const { call, campaign, steps, stepPath, conditions, conditionPath, email, message, addStep, addCondition, detail, wiring, expectError } = flowHelpers(() => ({ stack, aliceKey }));

  beforeAll(async () => {
    ({ stack, aliceKey, bobKey } = await startFlowWorld(clock));
  });
  afterAll(async () => stack?.stop());

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

});
