import { systemClock } from '../../../shared/time/clock';
import * as v from 'valibot';
import { BaseEnv, loadEnv } from '../../../shared/config/env';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoSearchUsageRepository } from '../../../shared/db/search-usage-repository';
import { createLeadWriter } from '../../../shared/domain/leads/lead-writer';
import { createProspectSearchService } from '../../../shared/domain/leads/prospect-search-service';
import { httpHandler } from '../../../shared/http/http-handler';
import { HttpDirectoryProvider } from '../../../shared/providers/directory/http-directory';
import { tableAccess } from '../../../shared/runtime/table';
import { prospectRoutes } from './routes';

const positiveInteger = (fallback: string) => v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1)), fallback);

const env = loadEnv(
  v.object({
    ...BaseEnv.entries,
    /** The B2B directory's API (locally: the sandbox directory started by the local stack). */
    DIRECTORY_BASE_URL: v.pipe(v.string(), v.url()),
    DIRECTORY_API_KEY: v.pipe(v.string(), v.minLength(1)),
    /** Directory searches per workspace per calendar month (UTC). */
    SEARCH_QUOTA_PER_MONTH: positiveInteger('1000'),
    MAX_LEADS_PER_LIST: positiveInteger('100000'),
  }),
);

const { db, tableName, ids } = tableAccess(env);
const leads = new DynamoLeadRepository(db, tableName);
const clock = systemClock;

const search = createProspectSearchService({
  directory: new HttpDirectoryProvider({ baseUrl: env.DIRECTORY_BASE_URL, apiKey: env.DIRECTORY_API_KEY }),
  usage: new DynamoSearchUsageRepository(db, tableName),
  leads,
  writer: createLeadWriter({ leads, ids, clock, maxLeadsPerList: env.MAX_LEADS_PER_LIST }),
  clock,
  monthlyQuota: env.SEARCH_QUOTA_PER_MONTH,
});

export const handler = httpHandler(prospectRoutes(search));
