import { CONVERSATION_CURSOR, DynamoConversationStore } from '../../../shared/db/conversation-repository';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import { DynamoInboundLinks } from '../../../shared/db/inbound-links';
import { CONVERSATION_MESSAGE_PREFIX } from '../../../shared/db/keys';
import { DynamoLeadRepository } from '../../../shared/db/lead-repository';
import { DynamoOutcomeLog } from '../../../shared/db/outcome-log';
import { DynamoSenderAccountRepository } from '../../../shared/db/sender-account-repository';
import { createInboxService } from '../../../shared/domain/inbox/inbox-service';
import { createManualReplies } from '../../../shared/domain/inbox/manual-reply';
import { httpHandler } from '../../../shared/http/http-handler';
import { CHATS_TIMEOUT_SECONDS, type GroupConfig } from '../../../shared/http/route-table';
import { chatRoutes } from '../../../shared/http/routes/chats';
import { type FunctionDeps, loggerFor } from '../../../shared/runtime/function-deps';
import { providerFrom } from '../../../shared/runtime/integrations';
import { logPullFailures } from '../../../shared/runtime/campaign-slots';
import { sequenceStopsFrom } from '../../../shared/runtime/sequence-stops';
import { suppressionsFrom } from '../../../shared/runtime/suppressions';
import { tableAccess } from '../../../shared/runtime/table';
import { chatHandlers } from './routes';

/** Time a manual message keeps after its look, for its writes and the answer. */
const LOOK_RESERVE_MS = 3_000;

/** The chats function: the inbox (conversations and their messages) and manual messages through the provider. */
export function buildChatsHandler(config: GroupConfig<'chats'>, deps: FunctionDeps) {
  const logger = loggerFor('chats', deps);
  const table = tableAccess(config, deps);
  const { db, tableName, ids } = table;
  const conversations = new DynamoConversationStore(db, tableName);
  const accounts = new DynamoSenderAccountRepository(db, tableName);
  const enrichments = new DynamoEnrichmentRepository(db, tableName);
  const inbox = createInboxService({
    conversations,
    leads: new DynamoLeadRepository(db, tableName, deps.clock),
    accounts,
    // The store's positions: a message's sort key for a conversation, an inbox index key for the list.
    validCursor: (raw, kind) => CONVERSATION_CURSOR.test(raw) && raw.startsWith(CONVERSATION_MESSAGE_PREFIX) === (kind === 'messages'),
    enriching: (workspaceId, listIds) => enrichments.busyInWorkspace(workspaceId, { listIds }),
  });
  const replies = createManualReplies({
    prospects: inbox,
    conversations,
    accounts,
    provider: providerFrom(config),
    links: new DynamoInboundLinks(db, tableName),
    suppressions: suppressionsFrom(table, deps.clock),
    sentEmails: new DynamoOutcomeLog(db, tableName, deps.clock),
    stops: sequenceStopsFrom(table, deps.clock, config.maxLeadsPerList, { onPullFailed: logPullFailures(logger) }),
    // What the request has left after a profile read and the send (each bounded by the provider
    // timeout), less time for its writes and the answer.
    lookBudgetMs: Math.max(1_000, CHATS_TIMEOUT_SECONDS * 1000 - 2 * config.providerTimeoutMs - LOOK_RESERVE_MS),
    ids,
    clock: deps.clock,
  });
  return httpHandler(chatRoutes, chatHandlers(inbox, replies), { logger, checkResponses: deps.checkResponses });
}
