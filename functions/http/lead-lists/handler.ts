import { systemClock } from '../../../shared/time/clock';
import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { DynamoLeadListRepository } from '../../../shared/db/lead-list-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { createLeadListService } from '../../../shared/domain/leads/lead-list-service';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { httpHandler } from '../../../shared/http/http-handler';
import { tableAccess } from '../../../shared/runtime/table';
import { leadListRoutes } from './routes';

const env = loadEnv(
  v.object({
    ...BaseEnv.entries,
    /** Leads one list may hold (see docs/lead-lists.md). */
    MAX_LEADS_PER_LIST: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1)), '100000'),
  }),
);

const { db, tableName, ids } = tableAccess(env);
const leads = new DynamoLeadRepository(db, tableName);
const clock = systemClock;

const lists = createLeadListService({
  lists: new DynamoLeadListRepository(db, tableName),
  leads,
  writer: createLeadWriter({ leads, ids, clock, maxLeadsPerList: env.MAX_LEADS_PER_LIST }),
  ids,
  clock,
});

/** Imports carry up to 1000 rows (a CSV of that size is well under 4 MB). */
export const handler = httpHandler(leadListRoutes(lists), { maxBodyBytes: 4 * 1024 * 1024 });
