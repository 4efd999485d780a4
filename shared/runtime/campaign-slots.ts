import { DynamoOutreachActions } from '../db/outreach-actions';
import { DynamoSendCounters } from '../db/send-counters';
import { type CampaignSlots, createCampaignSlots } from '../domain/engine/held-slots';
import type { TableAccess } from './table';

/** The cap slots prospects leaving campaigns give back (held-slots.ts), over the table: for every function that moves prospects out. */
export function campaignSlotsFrom({ db, tableName }: Pick<TableAccess, 'db' | 'tableName'>): CampaignSlots {
  return createCampaignSlots({ actions: new DynamoOutreachActions(db, tableName), counters: new DynamoSendCounters(db, tableName) });
}
