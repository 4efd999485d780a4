import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { resolveNode } from '../../../shared/domain/campaigns/flow';
import { ManualClock } from '../../../shared/time/clock';
import type { SignedUpUser, TestStack } from '../../support/test-stack';
import { ACTIVE_REFUSAL, flowHelpers, startFlowWorld } from './flow-helpers';

/** A campaign flow over HTTP while ACTIVE, PAUSED or ARCHIVED, its size limit, and concurrent changes. */
describe('a campaign flow: statuses, size and concurrent changes', () => {
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');
  let stack: TestStack;
  let alice: SignedUpUser;
  let aliceKey: string;
  let mailboxId: number;
  const at = () => clock.now().toISOString();
  const { call, campaign, steps, stepPath, conditions, conditionPath, email, message, addStep, addCondition, detail, wiring, expectError } = flowHelpers(() => ({ stack, aliceKey }));

  beforeAll(async () => {
    ({ stack, alice, aliceKey, mailboxId } = await startFlowWorld(clock));
  });
  afterAll(async () => stack?.stop());

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
