import { DynamoCampaignRepository } from '../db/campaign-repository';
import { DynamoOutreachActions } from '../db/outreach-actions';
import { DynamoSendCounters } from '../db/send-counters';
import { type CampaignSlots, createCampaignSlots } from '../domain/engine/held-slots';
import { createSlotReturns } from '../domain/engine/slot-returns';
import type { Clock } from '../time/clock';
import type { TableAccess } from './table';

/** The cap slots prospects leaving campaigns give back (held-slots.ts), over the table: for every function that moves prospects out. */
export function campaignSlotsFrom({ db, tableName }: Pick<TableAccess, 'db' | 'tableName'>, clock: Clock): CampaignSlots {
  const actions = new DynamoOutreachActions(db, tableName);
  const slots = createSlotReturns({ counters: new DynamoSendCounters(db, tableName), actions, campaigns: new DynamoCampaignRepository(db, tableName), clock });
  return createCampaignSlots({ actions, slots });
}
