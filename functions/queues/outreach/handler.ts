import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { SettingsOf } from '../../../shared/config/settings';
import { DynamoCampaignEvents } from '../../../shared/db/campaign-events';
import { DynamoConversationStore } from '../../../shared/db/conversation-repository';
import { DynamoInboundLinks } from '../../../shared/db/inbound-links';
import { DynamoCampaignProspects } from '../../../shared/db/campaign-prospects';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { DynamoOutreachActions } from '../../../shared/db/outreach-actions';
import { DynamoSendCounters } from '../../../shared/db/send-counters';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createProspectProgress } from '../../../shared/domain/engine/prospect-progress';
import { createSender } from '../../../shared/domain/engine/sender';
import { refsOf } from '../../../shared/messaging/outreach-queue';
import { loggingAccountPauses } from '../../../shared/runtime/account-pauses';
import type { OUTREACH } from '../../../shared/runtime/catalog';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { checkingAccounts } from '../../../shared/domain/providers/account-check';
import { mxResolverFrom, providerFrom } from '../../../shared/runtime/integrations';
import { suppressionsFrom, unsubscribeLinksFrom } from '../../../shared/runtime/suppressions';
import { logPullFailures } from '../../../shared/runtime/campaign-slots';
import { tableAccess } from '../../../shared/runtime/table';

/** What an action keeps, past its provider calls, for its reads and writes (a few seconds at most). */
const ACTION_WRITES_RESERVE_MS = 6_000;

/**
 * The sender (consumer of the outreach queue): carries out each message's due actions
 * (shared/domain/engine/sender.ts). Provider failures are due times the engine sets, not message
 * failures; a message is reported failed (partial batch response) only when one of its actions
 * hit an error the engine could not record (storage), and its redelivery repeats nothing: every
 * action is claimed before it is sent.
 */
export function buildOutreachHandler(config: SettingsOf<typeof OUTREACH.settings>, deps: FunctionDeps) {
  const logger = loggerFor('outreach', deps);
  const table = tableAccess(config, deps);
  const { db, tableName, ids } = table;
  const leads = new DynamoLeadRepository(db, tableName, deps.clock);
  // A 404 through an account the provider no longer knows pauses the account (account-check.ts).
  const provider = checkingAccounts(providerFrom(config));
  const sender = createSender({
    actions: new DynamoOutreachActions(db, tableName),
    counters: new DynamoSendCounters(db, tableName),
    outcomes: new DynamoOutcomeLog(db, tableName, deps.clock),
    progress: createProspectProgress({ leads, ids, clock: deps.clock, maxLeadsPerList: config.maxLeadsPerList }),
    completion: new DynamoCampaignProspects(db, tableName),
    campaigns: new DynamoCampaignRepository(db, tableName),
    // Each pause is logged: the stack's metric filter alarms on pauses that wait for the provider.
    accounts: loggingAccountPauses(new DynamoSenderAccountRepository(db, tableName), logger),
    leads,
    provider,
    sentMessages: { conversations: new DynamoConversationStore(db, tableName), links: new DynamoInboundLinks(db, tableName) },
    conditions: { provider, mx: mxResolverFrom(config, deps.clock), acceptances: new DynamoCampaignEvents(db, tableName, deps.clock) },
    suppressions: suppressionsFrom(table, deps.clock),
    unsubscribeLinks: unsubscribeLinksFrom(config),
    clock: deps.clock,
    newToken: randomUUID,
    onPullFailed: logPullFailures(logger),
    // Three provider calls at their timeout (a profile look, a send, and the account check after a
    // 404: account-check.ts) and the writes around them.
    actionReserveMs: 3 * config.providerTimeoutMs + ACTION_WRITES_RESERVE_MS,
  });
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const owners: string[] = [];
    const refs = event.Records.flatMap((record) => {
      const found = refsOf(record.body);
      // A message that can never be read: the scheduler dispatches its actions again, so dropping it loses nothing.
      if (!found) logger.warn('Unreadable outreach message dropped', { messageId: record.messageId });
      for (const _ of found ?? []) owners.push(record.messageId);
      return found ?? [];
    });
    const results = await sender.processBatch(refs, undefined, context ? () => context.getRemainingTimeInMillis() : undefined);
    const failed = new Set<string>();
    let deferred = 0;
    results.forEach((result, i) => {
      if (result === 'deferred') {
        deferred += 1;
        failed.add(owners[i] as string);
        return;
      }
      if (!(result instanceof Error)) return;
      const ref = refs[i];
      logger.error('Outreach action failed; its message will be retried', { campaignId: ref?.campaignId, prospectId: ref?.prospectId, error: String(result) });
      failed.add(owners[i] as string);
    });
    // Slow provider calls used the function's time: what was not started comes back with its message
    // (after the visibility timeout; what was done is then found done).
    if (deferred > 0) logger.warn("Outreach actions left for their message's next delivery: the function's time ran short", { actions: deferred });
    return { batchItemFailures: [...failed].map((itemIdentifier): SQSBatchItemFailure => ({ itemIdentifier })) };
  };
}
