import { DynamoCampaignEvents } from '../db/campaign-events';
import { DynamoCampaignProspects } from '../db/campaign-prospects';
import { DynamoCampaignRepository } from '../db/campaign-repository';
import { DynamoLeadRepository } from '../db/lead-repository';
import { DynamoOutreachActions } from '../db/outreach-actions';
import { DynamoSendCounters } from '../db/send-counters';
import { createStatusWriter } from '../domain/engine/prospect-progress';
import { type SequenceStopDeps, createSequenceStops } from '../domain/engine/sequence-stop';
import { type PullFailed, createSlotReturns } from '../domain/engine/slot-returns';
import type { Clock } from '../time/clock';
import type { TableAccess } from './table';

/**
 * Sequence stops (shared/domain/engine/sequence-stop.ts) over the table, as every function that
 * stops sequences builds them; `onPullFailed` reports a pull forward that failed (campaign-slots.ts
 * `logPullFailures`); `overrides` replaces parts (a test's port that interleaves a race).
 */
export function sequenceStopsFrom(
  { db, tableName, ids }: TableAccess,
  clock: Clock,
  maxLeadsPerList: number,
  { onPullFailed, overrides = {} }: { onPullFailed?: PullFailed | undefined; overrides?: Partial<SequenceStopDeps> } = {},
) {
  const leads = new DynamoLeadRepository(db, tableName, clock);
  const actions = new DynamoOutreachActions(db, tableName);
  const campaigns = new DynamoCampaignRepository(db, tableName);
  return createSequenceStops({
    actions,
    slots: createSlotReturns({ counters: new DynamoSendCounters(db, tableName), actions, campaigns, clock, ...(onPullFailed ? { onPullFailed } : {}) }),
    leads,
    writeStatus: createStatusWriter({ leads, ids, clock, maxLeadsPerList }),
    campaigns,
    completion: new DynamoCampaignProspects(db, tableName),
    events: new DynamoCampaignEvents(db, tableName, clock),
    clock,
    ...overrides,
  });
}
