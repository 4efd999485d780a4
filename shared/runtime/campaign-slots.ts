import { DynamoCampaignRepository } from '../db/campaign-repository';
import { DynamoOutreachActions } from '../db/outreach-actions';
import { DynamoSendCounters } from '../db/send-counters';
import { type CampaignSlots, createCampaignSlots } from '../domain/engine/held-slots';
import { type PullFailed, createSlotReturns } from '../domain/engine/slot-returns';
import type { Logger } from '../logging/logger';
import type { Clock } from '../time/clock';
import type { TableAccess } from './table';

/** A pull forward or a place's handover that failed (slot-returns.ts), as a WARN line of the function's log. */
export const logPullFailures =
  (logger: Pick<Logger, 'warn'>): PullFailed =>
  (error, at) =>
    logger.warn('A wait past the cap could not be moved into a position or place given back: that day sends one fewer', { ...at, error: String(error) });

/** The cap slots prospects leaving campaigns give back (held-slots.ts), over the table: for every function that moves prospects out. */
export function campaignSlotsFrom({ db, tableName }: Pick<TableAccess, 'db' | 'tableName'>, clock: Clock, onPullFailed?: PullFailed): CampaignSlots {
  const actions = new DynamoOutreachActions(db, tableName);
  const slots = createSlotReturns({
    counters: new DynamoSendCounters(db, tableName),
    actions,
    campaigns: new DynamoCampaignRepository(db, tableName),
    clock,
    ...(onPullFailed ? { onPullFailed } : {}),
  });
  return createCampaignSlots({ actions, slots });
}
