import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import type { CampaignNode } from '../../../shared/domain/campaigns/nodes';
import { BATCH_COPY_MAX_AGE_MS, createBatchReads } from '../../../shared/domain/engine/sender-reads';
import type { SenderAccount } from '../../../shared/domain/sender-accounts/sender-account';
import { ManualClock } from '../../../shared/time/clock';

/**
 * A sender batch's copies of its campaigns and sender accounts are read again once older than
 * BATCH_COPY_MAX_AGE_MS (an in-memory table stands in; the clock is moved as the batch's time passes).
 */
describe('a sender batch’s copies of campaigns and accounts', () => {
  function world() {
    const clock = new ManualClock('2026-11-28T09:00:00.000Z');
    const stored = { status: 'ACTIVE', flowVersion: 3, emailMaxMessages: 40 };
    const nodes = new Map([[11, { id: 11 } as CampaignNode]]);
    const limits = { emails: 50 };
    const calls: string[] = [];
    const reads = createBatchReads(
      {
        clock,
        campaigns: {
          get: async () => {
            calls.push('get');
            return { id: 7, workspaceId: 3, ...stored } as Campaign;
          },
          getWithFlow: async () => {
            calls.push('getWithFlow');
            return { campaign: { id: 7, workspaceId: 3, ...stored } as Campaign, nodes: new Map(nodes) };
          },
        },
        accounts: {
          listForWorkspace: async () => {
            calls.push('accounts');
            return [{ id: 5, dailyLimits: { ...limits } } as unknown as SenderAccount];
          },
        },
      } as unknown as Parameters<typeof createBatchReads>[0],
      [],
    );
    return { clock, stored, limits, calls, reads };
  }

  it('reads a campaign once while its copy is fresh, then its item again (the nodes kept) once it is older', async () => {
    const { clock, stored, calls, reads } = world();
    const first = await reads.campaign(3, 7);
    clock.advance(BATCH_COPY_MAX_AGE_MS - 1);
    // Paused meanwhile: a fresh copy does not see it yet.
    stored.status = 'PAUSED';
    expect((await reads.campaign(3, 7))?.campaign.status).toBe('ACTIVE');
    expect(calls).toEqual(['getWithFlow']);
    clock.advance(1);
    const again = await reads.campaign(3, 7);
    expect([again?.campaign.status, again?.nodes]).toEqual(['PAUSED', first?.nodes]);
    expect(calls).toEqual(['getWithFlow', 'get']);
    // Every copy is one the batch read (its completion check asks each campaign once).
    expect((await reads.campaignsRead()).map((c) => c.status)).toEqual(['ACTIVE', 'PAUSED']);
  });

  it('reads the flow again when its structure changed', async () => {
    const { clock, stored, calls, reads } = world();
    await reads.campaign(3, 7);
    stored.flowVersion = 4;
    clock.advance(BATCH_COPY_MAX_AGE_MS);
    expect((await reads.campaign(3, 7))?.campaign.flowVersion).toBe(4);
    expect(calls).toEqual(['getWithFlow', 'get', 'getWithFlow']);
  });

  it('reads the workspace’s accounts again once the copy is older: a lowered daily limit is seen', async () => {
    const { clock, limits, calls, reads } = world();
    expect((await reads.accounts(3)).get(5)?.dailyLimits).toEqual({ emails: 50 });
    limits.emails = 0;
    expect((await reads.accounts(3)).get(5)?.dailyLimits).toEqual({ emails: 50 });
    clock.advance(BATCH_COPY_MAX_AGE_MS);
    expect((await reads.accounts(3)).get(5)?.dailyLimits).toEqual({ emails: 0 });
    expect(calls).toEqual(['accounts', 'accounts']);
  });
});
