import { describe, expect, it } from 'vitest';
import type { Campaign, CampaignStatus } from '../../../shared/domain/campaigns/campaign';
import { createActionWrites } from '../../../shared/domain/engine/sender-writes';
import type { BatchReads } from '../../../shared/domain/engine/sender-reads';
import { ManualClock } from '../../../shared/time/clock';

/**
 * The campaign completion a sender batch asks for at its end, with the campaign as the table holds
 * it now (an in-memory stand-in: the condition on the prospect count is the table's, written out).
 */
describe('completing a campaign at the end of a sender batch', () => {
  const clock = new ManualClock('2026-11-28T09:00:00.000Z');

  function batch(stored: { status: CampaignStatus; prospectCount: number }, unfinished = false, addedDuringCheck = 0) {
    const read = { id: 7, workspaceId: 3, status: 'ACTIVE', prospectCount: 1 } as Campaign;
    const writes: string[] = [];
    const deps = {
      campaigns: {
        get: async () => ({ ...read, ...stored }),
        getWithFlow: async () => undefined,
        async setStatus(_campaign: Campaign, from: CampaignStatus, to: CampaignStatus, _at: string, expect: { prospectCount?: number } = {}) {
          writes.push(`${from}->${to} if count ${expect.prospectCount ?? 'any'}`);
          if (stored.status !== from || (expect.prospectCount !== undefined && stored.prospectCount !== expect.prospectCount)) return false;
          stored.status = to;
          return true;
        },
      },
      completion: {
        hasUnfinished: async () => {
          // An add-to-campaign that commits right after the check (its prospects counted in its transaction).
          stored.prospectCount += addedDuringCheck;
          return unfinished;
        },
      },
      clock,
    } as unknown as Parameters<typeof createActionWrites>[0];
    const { completeCampaigns, sequenceEnded } = createActionWrites(deps);
    sequenceEnded(read);
    const reads = { campaignsRead: async () => [read] } as unknown as BatchReads;
    return { run: () => completeCampaigns(reads), writes, stored };
  }

  it('completes it when every prospect finished, on the prospect count it read', async () => {
    const { run, writes, stored } = batch({ status: 'ACTIVE', prospectCount: 4 });
    await run();
    expect([writes, stored.status]).toEqual([['ACTIVE->COMPLETED if count 4'], 'COMPLETED']);
  });

  it('leaves an ACTIVE campaign whose prospects all left (moved out) ACTIVE: it has nothing it finished', async () => {
    const { run, writes, stored } = batch({ status: 'ACTIVE', prospectCount: 0 });
    await run();
    expect([writes, stored.status]).toEqual([[], 'ACTIVE']);
  });

  it('leaves it ACTIVE when prospects were added between the check and the write: its count moved', async () => {
    const { run, writes, stored } = batch({ status: 'ACTIVE', prospectCount: 4 }, false, 2);
    await run();
    expect([writes, stored.status]).toEqual([['ACTIVE->COMPLETED if count 4'], 'ACTIVE']);
  });

  it('leaves it ACTIVE when a prospect is unfinished', async () => {
    const { run, writes } = batch({ status: 'ACTIVE', prospectCount: 4 }, true);
    await run();
    expect(writes).toEqual([]);
  });
});
