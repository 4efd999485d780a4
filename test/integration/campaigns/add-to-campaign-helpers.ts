import { expect } from 'vitest';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { ManualClock } from '../../../shared/time/clock';
import type { TestStack } from '../../support/test-stack';
import { type LeadListView, type Workspace, createList, importLeads, leadsStack, person } from '../leads/helpers';
import { campaignItems, createCampaign, prospectCount, storedProspect } from './helpers';

export const NOW = '2026-12-01T09:30:00.000Z';
export const DRAFT_WARNING = 'Campaign is in DRAFT: prospects were added but not scheduled; activate the campaign to start outreach';

/** Alice, and Bob with a list, a prospect and a campaign of his own, at NOW. */
export async function startMoveWorld() {
  const { stack, alice, bob } = await leadsStack({ clock: new ManualClock(NOW) });
  const bobsList = await createList(stack, bob, 'Bob source');
  const bobsProspect = ((await importLeads(stack, bob, bobsList.id, { leads: [person(9000)] })).leads[0] as { id: number }).id;
  const bobsCampaign = await createCampaign(stack, bob, 'Bob campaign');
  return { stack, alice, bob, bobsList, bobsProspect, bobsCampaign };
}

/** Alice's lists of fresh prospects, and the check that campaigns' counts hold; `world` is read at each call. */
export function moveHelpers(world: () => { stack: TestStack; alice: Workspace }) {
  let row = 0;
  /** A fresh PEOPLE list of Alice's holding these rows (each with a profile URL of its own); their ids in row order. */
  async function seedList(name: string, rows: Record<string, unknown>[]): Promise<{ list: LeadListView; ids: number[] }> {
    const { stack, alice } = world();
    const list = await createList(stack, alice, name);
    const leads = rows.map((fields, i) => person(row + i + 1, fields));
    row += rows.length;
    const imported = await importLeads(stack, alice, list.id, { leads });
    expect(imported.created + imported.updated).toBe(rows.length);
    return { list, ids: imported.leads.map((lead) => lead.id) };
  }

  /** Each campaign's count equals its items, and every item's prospect names that campaign. */
  async function expectConsistent(campaigns: Campaign[]) {
    const { stack } = world();
    for (const campaign of campaigns) {
      const items = await campaignItems(stack, campaign.id);
      expect(await prospectCount(stack, campaign.id), `count of ${campaign.name}`).toBe(items.length);
      for (const item of items) expect((await storedProspect(stack, item.prospectId as number))?.campaignId).toBe(campaign.id);
    }
  }
  /** How many rows the lists seeded so far hold (person numbers run on from list to list). */
  const rowsSoFar = () => row;
  return { seedList, expectConsistent, rowsSoFar };
}
