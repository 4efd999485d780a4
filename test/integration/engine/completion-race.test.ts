import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCampaignProspects } from '../../../shared/db/campaign-prospects';
import { DynamoIdAllocator } from '../../../shared/db/id-allocator';
import { sequenceStopsFrom } from '../../../shared/runtime/sequence-stops';
import { ManualClock } from '../../../shared/time/clock';
import { type EngineWorld, campaignStatus, campaignWith, engineWorld, play, prospectStatuses, prospectsIn, sandboxSent } from './helpers';

/**
 * A campaign's last unfinished prospect stops (a pipeline status, a reply) while an add-to-campaign
 * with `activate` commits between the completion's check and its status write: the campaign stays
 * ACTIVE and the added prospects are contacted (a race probe found them scheduled in a COMPLETED
 * campaign, never contacted). Driven by a completion port that lets the add commit during its check.
 */
describe('completion racing an add', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam.
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  let world: EngineWorld;

  beforeAll(async () => {
    world = await engineWorld(clock);
  });
  afterAll(async () => world?.stack.stop());

  it('keeps a campaign ACTIVE when prospects were added between the check that none is unfinished and the status write', async () => {
    const { stack } = world;
    const campaign = await campaignWith(world, 'Completion race', [{ step_type: 'EMAIL', subject_line: 'Race email' }]);
    const [last] = (await prospectsIn(world, campaign.id, [{}])) as number[];
    expect((await stack.call('POST', `/public/campaigns/${campaign.id}/activate/`, { apiKey: world.ws.key })).status).toBe(200);
    const { db, tableName } = stack;
    const campaignProspects = new DynamoCampaignProspects(db, tableName);
    let added: number[] = [];
    const stops = sequenceStopsFrom({ db, tableName, ids: new DynamoIdAllocator(db, tableName) }, clock, 100_000, {
      overrides: {
        completion: {
          // The check sees none unfinished; an add with activate commits right after it.
          async hasUnfinished(campaignId) {
            const unfinished = await campaignProspects.hasUnfinished(campaignId);
            if (added.length === 0) added = (await prospectsIn(world, campaign.id, [{}, {}], { activate: true })) as number[];
            return unfinished;
          },
        },
      },
    });
    const stopped = await stops.stop({ workspaceId: world.ws.workspaceId, prospectId: last as number, status: 'NOT_INTERESTED' });
    expect(stopped.stopped).toBe(true);
    expect(await campaignStatus(world, campaign.id)).toBe('ACTIVE');
    await play(stack);
    const emailed = (await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.subject === 'Race email');
    expect(emailed).toHaveLength(2);
    expect(await prospectStatuses(world, campaign.id)).toEqual({
      [last as number]: { status: 'NOT_INTERESTED', last_error: null },
      [added[0] as number]: { status: 'FINISHED', last_error: null },
      [added[1] as number]: { status: 'FINISHED', last_error: null },
    });
    expect(await campaignStatus(world, campaign.id)).toBe('COMPLETED');
  });
});
