import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { createKey, signUp } from '../../support/test-stack';
import {
  type EngineWorld,
  actionsOf,
  activate,
  advance,
  campaignStatus,
  campaignWith,
  engineWorld,
  prospectStatuses,
  prospectsIn,
  sandboxSent,
} from '../engine/helpers';
import { createList, expectedCompanySummary, expectedProspect, importLeads, person } from '../leads/helpers';

/** GET and PATCH /public/prospects/{prospect_id}/: the pipeline stage stops the sequence. */
describe('a prospect and its pipeline stage', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;
  let otherKey: string;
  let bad = 0;
  // Every day, all day: a step's delay is then exactly when it is sent.
  const open = { enabled: true, start: '00:00', end: '23:59' };
  const everyDay = { sending_window: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, open])) };

  beforeAll(async () => {
    world = await engineWorld(clock);
    const other = await signUp(world.stack);
    otherKey = (await createKey(world.stack, other)).key;
  });
  afterAll(async () => world?.stack.stop());

  const getProspect = (id: number, key = world.ws.key) => world.stack.call<{ success: boolean; prospect: Record<string, unknown> }>('GET', `/public/prospects/${id}/`, { apiKey: key });
  const patch = (id: number, body: unknown, key = world.ws.key) =>
    world.stack.call<{ success: boolean; prospect: Record<string, unknown> }>('PATCH', `/public/prospects/${id}/`, { apiKey: key, body });
  const emailsWithSubject = async (subject: string) => (await sandboxSent(world.stack)).filter((item) => item.kind === 'email' && item.subject === subject).length;

  it('answers one prospect of the workspace as the lead lists show it, and 404 for anyone else’s', async () => {
    const list = await createList(world.stack, world.ws, 'One prospect');
    const imported = await importLeads(world.stack, world.ws, list.id, {
      leads: [{ first_name: 'Grace', last_name: 'Hopper', email: 'grace@navy.example', job_title: 'Admiral', company_name: 'Navy', company_website_url: 'navy.example' }],
    });
    const id = imported.leads[0]?.id as number;
    const response = await getProspect(id);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      success: true,
      prospect: expectedProspect({
        id,
        first_name: 'Grace',
        last_name: 'Hopper',
        email: 'grace@navy.example',
        job_title: 'Admiral',
        company: expectedCompanySummary({ name: 'Navy', website_url: 'navy.example' }),
      }),
    });
    for (const [label, path, key] of [
      ['another workspace', `/public/prospects/${id}/`, otherKey],
      ['unknown', '/public/prospects/987654321/', world.ws.key],
      ['not an id', '/public/prospects/abc/', world.ws.key],
    ] as const) {
      const got = await world.stack.call('GET', path, { apiKey: key });
      expect([got.status, got.body], label).toEqual([404, { error: 'Prospect not found' }]);
    }
    const foreign = await patch(id, { status: 'INTERESTED' }, otherKey);
    expect([foreign.status, foreign.body]).toEqual([404, { error: 'Prospect not found' }]);
    expect((await getProspect(id)).body.prospect.status).toBe('NEW');
  });

  it.each([
    [{ status: 'REPLIED' }, 'status must be one of INTERESTED, NOT_INTERESTED, MEETING_SCHEDULED'],
    [{ status: 'interested' }, 'status must be one of INTERESTED, NOT_INTERESTED, MEETING_SCHEDULED'],
    [{ status: 3 }, 'status must be one of INTERESTED, NOT_INTERESTED, MEETING_SCHEDULED'],
    [{}, 'status is required'],
    [{ status: 'INTERESTED', email: 'x@example.com' }, 'email cannot be changed here (fields: status)'],
    // A misspelt field alone is named, not answered with `status is required`.
    [{ stauts: 'INTERESTED' }, 'stauts cannot be changed here (fields: status)'],
  ])('refuses %j with 400 "%s"', async (body, error) => {
    const list = await createList(world.stack, world.ws, `Bad ${JSON.stringify(body)}`);
    const id = (await importLeads(world.stack, world.ws, list.id, { leads: [person(900 + bad++, { email: `bad${bad}@example.com` })] })).leads[0]?.id as number;
    const response = await patch(id, body);
    expect([response.status, response.body]).toEqual([400, { error }]);
    expect((await getProspect(id)).body.prospect.status).toBe('NEW');
  });

  it.each(['INTERESTED', 'NOT_INTERESTED', 'MEETING_SCHEDULED'] as const)('%s stops the sequence and shows in GET and the campaign’s prospects page', async (status) => {
    const campaign = await campaignWith(world, `Pipeline ${status}`, [
      { step_type: 'EMAIL', subject_line: `${status} one` },
      { step_type: 'EMAIL', subject_line: `${status} two`, delay_in_hours: 2 },
    ], everyDay);
    const [id, other] = (await prospectsIn(world, campaign.id, [{}, {}])) as [number, number];
    await activate(world, campaign.id);
    expect(await emailsWithSubject(`${status} one`)).toBe(2);
    const response = await patch(id, { status });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ success: true, prospect: expect.objectContaining({ id, status, campaign_id: campaign.id }) });
    expect((await getProspect(id)).body.prospect).toEqual(expect.objectContaining({ id, status, campaign_id: campaign.id }));
    expect((await actionsOf(world.stack, campaign.id)).map((action) => action.prospectId)).toEqual([other]);
    await advance(world.stack, clock, 3);
    // Only the other prospect got the second email; the campaign completes with it.
    expect(await emailsWithSubject(`${status} two`)).toBe(1);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [id]: { status, last_error: null },
      [other]: { status: 'FINISHED', last_error: null },
    });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });

  it('completes the campaign when the stage is set on its last running prospect, and moves between stages', async () => {
    const campaign = await campaignWith(world, 'Last one', [
      { step_type: 'EMAIL', subject_line: 'Last one' },
      { step_type: 'EMAIL', subject_line: 'Last two', delay_in_hours: 2 },
    ], everyDay);
    const [id] = (await prospectsIn(world, campaign.id, [{}])) as [number];
    await activate(world, campaign.id);
    expect((await patch(id, { status: 'MEETING_SCHEDULED' })).status).toBe(200);
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
    const moved = await patch(id, { status: 'NOT_INTERESTED' });
    expect([moved.status, moved.body.prospect.status]).toEqual([200, 'NOT_INTERESTED']);
    expect(await prospectStatuses(world, campaign.id)).toEqual({ [id]: { status: 'NOT_INTERESTED', last_error: null } });
    await advance(world.stack, clock, 3);
    expect(await emailsWithSubject('Last two')).toBe(0);
  });

  it('refuses an archived prospect with 409', async () => {
    const list = await createList(world.stack, world.ws, 'Archived');
    const id = (await importLeads(world.stack, world.ws, list.id, { leads: [person(999, { email: 'gone@example.com' })] })).leads[0]?.id as number;
    const removed = await world.stack.call('DELETE', `/public/lead-lists/${list.id}/delete-leads/`, { apiKey: world.ws.key, body: { prospect_ids: [id] } });
    expect(removed.status, removed.text).toBe(200);
    const response = await patch(id, { status: 'INTERESTED' });
    expect([response.status, response.body]).toEqual([409, { error: 'Prospect is archived: its status cannot be changed' }]);
    expect((await getProspect(id)).body.prospect.status).toBe('ARCHIVED');
  });
});
