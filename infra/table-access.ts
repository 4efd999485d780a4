import { RECORD_USE_ATTRIBUTES } from '../shared/db/api-key-repository';
import type { IndexName } from '../shared/db/table-schema';
import type { FunctionGroup } from '../shared/http/route-table';
import { CAMPAIGN_SCHEDULING, ENRICHMENT, ENRICHMENT_SWEEPER, INBOUND_RETRY, OUTREACH, OUTREACH_SCHEDULER, WEBHOOK_DELIVERY } from '../shared/runtime/catalog';

/**
 * The item-level DynamoDB actions a function may use. A transaction has no IAM action of its own:
 * each of its parts needs its action (Put, Update, Delete, ConditionCheck). No function scans (the
 * only Scan is the operator's migration command, which runs with the operator's credentials), and
 * none needs DescribeTable or the stream actions that CDK's grantReadWriteData adds.
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'ConditionCheckItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem';

export interface TableGrant {
  /** Actions on the table itself. */
  readonly actions: readonly TableAction[];
  /**
   * Query on indexes, each named in the policy (the global ones project ALL; the local ones hold
   * keys, and a Query asking for more fetches from the table, which `Query` in `actions` allows).
   * `true`: every index, for a function that reads items on the table itself (GetItem or
   * BatchGetItem on any key), which an index can show it nothing more of. A list: only those, for a
   * function that cannot read items by key, so that an index would widen what it can read.
   */
  readonly queriesIndexes?: true | readonly IndexName[];
  /** Actions allowed only on these attributes besides the item's key (IAM `dynamodb:Attributes`). */
  readonly onlyAttributes?: { readonly actions: readonly TableAction[]; readonly attributes: readonly string[] };
  /** Why these and no others. */
  readonly reason: string;
}

/**
 * Everything a function that writes leads through LeadRepository needs: a lead batch opens its
 * journal and claims identities (transactions of Puts, Updates and ConditionChecks), writes new
 * leads and their list views in batches (BatchWriteItem), re-derives views under a check of the
 * lead's version, and deletes the views and guards it replaces; it reads leads in batches and list
 * members through the local indexes.
 */
const LEAD_WRITER: TableGrant = {
  actions: ['GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
  queriesIndexes: true,
  reason: 'writes leads (journal, identity guards, list views and digests, counters)',
};

/**
 * The table access of each endpoint group's function, keyed by group so a new group must decide.
 * Derived from the repository calls each function's services make (and checked against the calls
 * the integration suite records); test/infra/least-privilege.test.ts pins each set.
 */
export const GROUP_TABLE_GRANTS: Readonly<Record<FunctionGroup, TableGrant | undefined>> = {
  health: undefined,
  auth: {
    actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    reason: 'sign-up (user, workspace and membership in one transaction), sessions (put, switch workspace, delete on logout), memberships, ids',
  },
  members: {
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queriesIndexes: true,
    reason: "members by workspace (gsi1) and their users (batch); adds and deletes memberships; revokes a removed member's keys",
  },
  apiKeys: {
    actions: ['GetItem', 'Query', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    reason: 'key record and credential written together with a slot and a check of the membership; rotate and revoke; ids',
  },
  leadLists: LEAD_WRITER,
  prospects: LEAD_WRITER,
  accounts: {
    actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queriesIndexes: true,
    reason: 'sender accounts with their provider guards (created and removed in transactions), status and settings, ids; the campaigns by workspace (gsi1) sending through one whose limit was raised',
  },
  connections: { actions: ['GetItem', 'Query'], reason: 'reads a prospect and the workspace sender accounts only' },
  userWebhook: {
    actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
    reason: 'webhook settings (read, put), the delivery log (put a test attempt, list) and a failed delivery reopened to be sent again',
  },
  // Replies stop sequences: the prospect's status through its lists.
  providerWebhooks: LEAD_WRITER,
  campaigns: {
    actions: ['GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queriesIndexes: true,
    reason: 'campaigns by workspace (gsi1), their flow nodes (saved under a check of the campaign), names, status, counters',
  },
  campaignProspects: LEAD_WRITER,
  // The sequence stop of an unsubscribe writes the prospect's status through its lists.
  unsubscribe: LEAD_WRITER,
  suppressions: {
    actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queriesIndexes: true,
    reason: 'entries by value (batch), by id (their id items) and by workspace (gsi1): conditional puts and deletes; ids',
  },
  enrichment: LEAD_WRITER,
  chats: {
    ...LEAD_WRITER,
    reason:
      "conversations (gsi1) and messages: appends a manual message, links its chat and records a manual email under its tracking id (for its thread's replies and bounces); reads prospects and suppressions in batches; an address the provider refuses for a manual email is suppressed (conditional puts in a transaction) and the prospect's sequence ended as BOUNCED (its action deleted, its status written as a lead writer does); the running enrichment jobs holding a page's prospects (their chunks, and a job whose chunks are not all written: 'Loading…'); ids",
  },
  analytics: { actions: ['BatchGetItem', 'Query'], queriesIndexes: true, reason: 'reads the daily aggregates, campaigns (gsi1) and memberships only' },
};

/**
 * The authorizer reads credentials, sessions and memberships. Its one write records an API key's
 * last use (at most once a minute per key, shared/domain/api-keys/api-key.ts): UpdateItem limited to
 * the attributes that write touches, so the function that every request runs through cannot change
 * a key's secret hash, owner, workspace or usage key, nor anything else in the table.
 */
export const AUTHORIZER_TABLE_GRANT: TableGrant = {
  actions: ['GetItem'],
  onlyAttributes: { actions: ['UpdateItem'], attributes: RECORD_USE_ATTRIBUTES },
  reason: 'reads credentials, sessions and memberships; records a key’s last use on its own attributes only',
};

/** Queue consumers by catalog name. */
export const QUEUE_TABLE_GRANTS: Readonly<Record<string, TableGrant>> = {
  [WEBHOOK_DELIVERY.name]: { actions: ['GetItem', 'PutItem', 'UpdateItem'], reason: "claims and completes a delivery, puts its attempt, reads the settings (creates them, a signing secret without a URL, for a user who has none when an event brings its own URL)" },
  [CAMPAIGN_SCHEDULING.name]: {
    // Query on the table too: lsi2 holds keys only, and its Query asks DynamoDB to fetch the items from the table.
    actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem'],
    queriesIndexes: true,
    reason: 'pages waiting prospects and parked actions (lsi2, items fetched from the table), schedules each waiting one (one conditional update: its campaign prospect carries its first action), makes each parked action due again (put), gives the actions waiting on a node whose delay was edited their new due time (the campaign with its flow and its actions partition queried, put), and at the end of the sweep after an activation completes a campaign whose prospects have all finished (lsi1 query, status update)',
  },
  [OUTREACH.name]: LEAD_WRITER,
  [ENRICHMENT.name]: LEAD_WRITER,
  // Runs again what the provider-webhooks function runs.
  [INBOUND_RETRY.name]: LEAD_WRITER,
};

/** Scheduled jobs by catalog name. */
export const SCHEDULE_TABLE_GRANTS: Readonly<Record<string, TableGrant>> = {
  // gsi2 only: neither may GetItem or BatchGetItem, so gsi1 (every workspace's leads, campaigns and accounts, projected ALL) would widen what they can read.
  [OUTREACH_SCHEDULER.name]: { actions: ['UpdateItem'], queriesIndexes: ['gsi2'], reason: 'due actions by shard (gsi2) under a lease per shard' },
  [ENRICHMENT_SWEEPER.name]: {
    actions: ['Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    queriesIndexes: ['gsi2'],
    reason: "running jobs (gsi2); writes the chunks a job lacks, reads its chunks, touches and completes it (deleting its workspace's running-job item, putting its completed item)",
  },
};
