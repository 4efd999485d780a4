import { describe, expect, it } from 'vitest';
import { refsOf, toMessage } from '../../../shared/messaging/outreach-queue';

describe('outreach messages', () => {
  const action = { campaignId: 31, prospectId: 45, workspaceId: 7, dueAt: '2026-11-23T09:00:00.000Z' };

  it('carry refs in short names, marking a first action its campaign prospect carries', () => {
    const message = toMessage([action, { ...action, prospectId: 46, first: true }]);
    expect(message).toEqual({
      actions: [
        { c: 31, p: 45, w: 7, due: '2026-11-23T09:00:00.000Z' },
        { c: 31, p: 46, w: 7, due: '2026-11-23T09:00:00.000Z', f: 1 },
      ],
    });
    expect(refsOf(JSON.stringify(message))).toEqual([action, { ...action, prospectId: 46, first: true }]);
  });

  it('read a message written before first actions were marked, and refuse one that is not an outreach message', () => {
    expect(refsOf(JSON.stringify({ actions: [{ c: 31, p: 45, w: 7, due: '2026-11-23T09:00:00.000Z' }] }))).toEqual([action]);
    expect(refsOf(JSON.stringify({ actions: [{ c: 31, p: 45, w: 7, due: '2026-11-23T09:00:00.000Z', f: 2 }] }))).toBeUndefined();
    expect(refsOf('not json')).toBeUndefined();
    expect(refsOf(JSON.stringify({ actions: [] }))).toBeUndefined();
  });
});
