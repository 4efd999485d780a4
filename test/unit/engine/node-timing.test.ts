import { describe, expect, it } from 'vitest';
import type { CampaignCondition, CampaignStep } from '../../../shared/domain/campaigns/nodes';
import type { OutreachAction } from '../../../shared/domain/engine/action';
import { heldUntil, reachedAtOf } from '../../../shared/domain/engine/node-timing';
import { actionWith } from '../../support/actions';

const AT = '2026-11-30T08:00:00.000Z';
// Monday to Friday 09:00-17:00 in UTC (an empty window is the default).
const campaign = { sendingWindow: {}, timezone: 'UTC' };
const step = (delayInHours: number): CampaignStep => ({
  kind: 'STEP',
  id: 10,
  campaignId: 1,
  stepType: 'EMAIL',
  subjectLine: 's',
  messageTemplate: 'm',
  subjectLineB: '',
  messageTemplateB: '',
  delayInHours,
  addUnsubscribe: false,
  createdAt: AT,
  updatedAt: AT,
});
const condition = (conditionType: CampaignCondition['conditionType'], delayInHours: number): CampaignCondition => ({
  kind: 'CONDITION',
  id: 11,
  campaignId: 1,
  conditionType,
  delayInHours,
  createdAt: AT,
  updatedAt: AT,
});
// Started, written three times: the fields each case needs are given.
const action = (fields: Partial<OutreachAction>): OutreachAction => actionWith(AT, { stint: AT, version: 3, started: true, ...fields });

describe('the delay of the node a prospect waits on, as it is now', () => {
  it('counts from the moment the prospect reached the node', () => {
    // A first action not written yet: its due time is when it was scheduled.
    expect(reachedAtOf(action({ version: 0, started: false, dueAt: '2026-11-30T07:00:00.000Z' }))?.toISOString()).toBe('2026-11-30T07:00:00.000Z');
    expect(reachedAtOf(action({ reachedAt: '2026-11-29T10:00:00.000Z', lastActionAt: '2026-11-28T10:00:00.000Z' }))?.toISOString()).toBe('2026-11-29T10:00:00.000Z');
    // Written before reachedAt existed: the scheduling moment kept in lastActionAt until it starts, unknown after.
    expect(reachedAtOf(action({ started: false, lastActionAt: '2026-11-28T10:00:00.000Z' }))?.toISOString()).toBe('2026-11-28T10:00:00.000Z');
    expect(reachedAtOf(action({ lastActionAt: '2026-11-28T10:00:00.000Z' }))).toBeUndefined();
  });

  it('holds a step until its delay is over, then the window opens; a condition until its delay, ACCEPTED_INVITE not at all', () => {
    const reached = action({ reachedAt: '2026-11-30T08:00:00.000Z' });
    // 12 hours later is 20:00 on Monday, after the window: Tuesday 09:00.
    expect(heldUntil(reached, step(12), campaign)?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
    expect(heldUntil(reached, step(2), campaign)?.toISOString()).toBe('2026-11-30T10:00:00.000Z');
    expect(heldUntil(reached, step(0), campaign)).toBeUndefined();
    expect(heldUntil(reached, condition('HAS_EMAIL', 12), campaign)?.toISOString()).toBe('2026-11-30T20:00:00.000Z');
    expect(heldUntil(reached, condition('ACCEPTED_INVITE', 12), campaign)?.toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(heldUntil(action({ lastActionAt: AT }), step(12), campaign)).toBeUndefined();
  });
});
