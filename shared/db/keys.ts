import { bucketOf } from '../domain/buckets';
import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, keyEndingIn } from './key-text';
/**
 * Key builders: the only place that knows how items are keyed. Numeric ids are zero-padded so
 * that sort keys order like the numbers they hold. These strings are a persisted contract.
 */
const ID_WIDTH = 16;

export const padId = (id: number): string => String(id).padStart(ID_WIDTH, '0');

const pkEndingIn = (fixed: string, text: string) => keyEndingIn(fixed, text, PARTITION_KEY_MAX_BYTES);
const skEndingIn = (fixed: string, text: string) => keyEndingIn(fixed, text, SORT_KEY_MAX_BYTES);

export const userKey = (userId: number) => ({ pk: `USER#${padId(userId)}`, sk: 'USER' });

/** Uniqueness guard for an email address; holds the owning user id. */
export const userEmailKey = (normalizedEmail: string) => ({ pk: pkEndingIn('EMAIL#', normalizedEmail), sk: 'EMAIL' });

export const workspaceKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: 'WORKSPACE' });

/** A user's link to a workspace, stored under the user so "my workspaces" is one Query. */
export const membershipKey = (userId: number, workspaceId: number) => ({
  pk: `USER#${padId(userId)}`,
  sk: `MEMBERSHIP#${padId(workspaceId)}`,
});
export const MEMBERSHIP_PREFIX = 'MEMBERSHIP#';
/** GSI1 on a membership: the workspace's members. */
export const membershipByWorkspace = (workspaceId: number, userId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#MEMBERS`,
  gsi1sk: `USER#${padId(userId)}`,
});

/** An API key's record (name, prefix, state), stored under its owner so listing is one Query. */
export const apiKeyRecordKey = (userId: number, keyId: number) => ({
  pk: `USER#${padId(userId)}`,
  sk: `APIKEY#${padId(keyId)}`,
});
export const API_KEY_RECORD_PREFIX = 'APIKEY#';

/**
 * How many active keys a user holds: the slot every key creation claims with a conditional write.
 * Its sort key does not begin with API_KEY_RECORD_PREFIX, so listing a user's keys never sees it.
 */
export const apiKeyCounterKey = (userId: number) => ({ pk: `USER#${padId(userId)}`, sk: 'APIKEY_COUNTER' });

/**
 * An API key's credential, addressed by its public prefix: what the authorizer reads, in one
 * GetItem, to check a presented key. Deleted when the key is rotated or revoked.
 */
export const apiKeyCredentialKey = (prefix: string) => ({ pk: `APIKEY_PREFIX#${prefix}`, sk: 'CREDENTIAL' });

export const sessionKey = (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'SESSION' });

/** One of the id allocator's counter shards. */
export const idShardKey = (shard: number) => ({ pk: `IDSHARD#${String(shard).padStart(3, '0')}`, sk: 'IDSHARD' });

/** A lead list, stored under its workspace: fetching it by (workspace, id) is the isolation check. */
export const leadListKey = (workspaceId: number, listId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}`,
  sk: `LEADLIST#${padId(listId)}`,
});
export const LEAD_LIST_PREFIX = 'LEADLIST#';

/**
 * A lead's membership of a list: one partition per list, so listing, sorting (sk and the LSIs)
 * and filtering a list are Queries on that partition alone.
 */
export const listMemberKey = (listId: number, leadId: number) => ({
  pk: `LEADLIST#${padId(listId)}#MEMBERS`,
  sk: `LEAD#${padId(leadId)}`,
});
export const LIST_MEMBER_PREFIX = 'LEAD#';

/** A chunk of a list's member digest (shared/domain/leads/member-digest.ts), beside its members. */
export const digestChunkKey = (listId: number, chunk: number) => ({
  pk: `LEADLIST#${padId(listId)}#MEMBERS`,
  sk: `${DIGEST_PREFIX}${String(chunk).padStart(6, '0')}`,
});
export const DIGEST_PREFIX = 'DIGEST#';

/**
 * The journal of one batch of lead writes: which leads, lists and identity claims it touches, so
 * that a batch interrupted half-way is finished (or undone) by whoever finds it later.
 */
export const leadJournalKey = (token: string) => ({ pk: `LEADJOURNAL#${token}`, sk: 'LEADJOURNAL' });

/** A prospect, in a partition of its own; `workspaceId` on the item says whose it is. */
export const prospectKey = (prospectId: number) => ({ pk: `PROSPECT#${padId(prospectId)}`, sk: 'PROSPECT' });
/** GSI1 on a prospect: the workspace's prospects (workspace-only search). */
export const prospectsByWorkspace = (workspaceId: number, prospectId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#PROSPECTS`,
  gsi1sk: `PROSPECT#${padId(prospectId)}`,
});
/**
 * GSI2 keys that prospects written before the member digest carry (a company's prospects). Nothing
 * writes or reads them any more: a company's prospects are found through the lists' digests. Kept
 * so the layout migration and its test can name such items.
 */
export const prospectsByCompany = (companyId: number, prospectId: number) => ({
  gsi2pk: `COMPANY#${padId(companyId)}#PROSPECTS`,
  gsi2sk: `PROSPECT#${padId(prospectId)}`,
});

export const companyKey = (companyId: number) => ({ pk: `COMPANY#${padId(companyId)}`, sk: 'COMPANY' });
/** GSI1 on a company: the workspace's companies (workspace-only search). */
export const companiesByWorkspace = (workspaceId: number, companyId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#COMPANIES`,
  gsi1sk: `COMPANY#${padId(companyId)}`,
});

/**
 * A workspace's lead counts: prospects that are not archived and companies, moved in the same
 * transaction as the leads. Its sort key does not begin with LEAD_LIST_PREFIX, so listing the
 * workspace's lists never sees it.
 */
export const workspaceLeadCountsKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: 'LEADCOUNTS' });

/**
 * Uniqueness guard of a lead identity within a workspace (`url:<canonical profile URL>`,
 * `email:<address>` for prospects; `domain:`, `url:`, `name:` for companies). Holds the lead's id;
 * written in the same transaction as the lead, so one identity can never name two leads.
 */
export const leadIdentityKey = (workspaceId: number, kind: 'PROSPECT' | 'COMPANY', identity: string) => ({
  pk: pkEndingIn(`LEADIDENTITY#${padId(workspaceId)}#${kind}#`, identity),
  sk: 'LEADIDENTITY',
});

/** A workspace's directory-search usage in one calendar month (`YYYY-MM`, UTC). */
export const searchUsageKey = (workspaceId: number, month: string) => ({
  pk: `WORKSPACE#${padId(workspaceId)}`,
  sk: `SEARCHUSAGE#${month}`,
});

/**
 * A connected sender account (a network account or a mailbox at the provider), stored under its
 * workspace so "the workspace's accounts" is one Query.
 */
export const senderAccountKey = (workspaceId: number, accountId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}`,
  sk: `SENDER_ACCOUNT#${padId(accountId)}`,
});
export const SENDER_ACCOUNT_PREFIX = 'SENDER_ACCOUNT#';

/**
 * A provider account id's owner: uniqueness guard (one provider account is connected to one
 * workspace) and the lookup the inbound provider webhook uses to find the account, in one GetItem.
 */
export const providerAccountKey = (providerAccountId: string) => ({
  pk: pkEndingIn('PROVIDER_ACCOUNT#', providerAccountId),
  sk: 'PROVIDER_ACCOUNT',
});

/**
 * What a workspace kept of a sender account it deleted, by provider account id: registering that
 * provider account again in the workspace brings back the same account id (and daily limits).
 */
export const formerAccountKey = (workspaceId: number, providerAccountId: string) => ({
  pk: `WORKSPACE#${padId(workspaceId)}`,
  sk: `FORMER_ACCOUNT#${providerAccountId}`,
});

/** A user's incoming-message webhook: URL and (encrypted) signing secrets. */
export const webhookSettingsKey = (userId: number) => ({ pk: `USER#${padId(userId)}`, sk: 'WEBHOOK' });

/** The delivery state of one event to one user: attempts, lease, outcome (the worker's idempotency record). */
export const webhookDeliveryKey = (userId: number, eventId: string) => ({
  pk: `USER#${padId(userId)}`,
  sk: `WEBHOOK_DELIVERY#${eventId}`,
});

/** One delivery attempt in the user's delivery log; sorts by time, so the log reads newest first. */
export const webhookAttemptKey = (userId: number, at: string, eventId: string, attempt: number) => ({
  pk: `USER#${padId(userId)}`,
  sk: `${WEBHOOK_ATTEMPT_PREFIX}${at}#${eventId}#${String(attempt).padStart(2, '0')}`,
});
export const WEBHOOK_ATTEMPT_PREFIX = 'WEBHOOK_ATTEMPT#';

/**
 * An inbound message (a prospect's reply) under the provider's message id, in its own partition:
 * the conditional write that makes a webhook posted twice one message with one id.
 */
export const inboundMessageKey = (workspaceId: number, providerMessageId: string) => ({
  pk: pkEndingIn(`INBOUND_MESSAGE#${padId(workspaceId)}#`, providerMessageId),
  sk: 'INBOUND_MESSAGE',
});

/**
 * A campaign: its settings, status, prospect count and the structure of its flow, in a partition
 * it shares with its flow's nodes, so a campaign with its whole flow is one Query. `workspaceId`
 * on the item says whose it is.
 */
export const campaignKey = (campaignId: number) => ({ pk: `CAMPAIGN#${padId(campaignId)}`, sk: 'CAMPAIGN' });
/** GSI1 on a campaign: the workspace's campaigns. */
export const campaignsByWorkspace = (workspaceId: number, campaignId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#CAMPAIGNS`,
  gsi1sk: `CAMPAIGN#${padId(campaignId)}`,
});

/** A step or condition of a campaign's flow (its texts and delay; the wiring is on the campaign). */
export const campaignNodeKey = (campaignId: number, nodeId: number) => ({
  pk: `CAMPAIGN#${padId(campaignId)}`,
  sk: `${CAMPAIGN_NODE_PREFIX}${padId(nodeId)}`,
});
export const CAMPAIGN_NODE_PREFIX = 'NODE#';

/** Uniqueness guard of a campaign name within a workspace; holds the campaign id. */
export const campaignNameKey = (workspaceId: number, name: string) => ({
  pk: pkEndingIn(`CAMPAIGNNAME#${padId(workspaceId)}#`, name),
  sk: 'CAMPAIGNNAME',
});

/**
 * A prospect's place in a campaign (status, current node, next action time, last error): one
 * partition per campaign, so the campaign's prospects are one Query, by status through lsi1.
 */
export const campaignProspectKey = (campaignId: number, prospectId: number) => ({
  pk: `CAMPAIGN#${padId(campaignId)}#PROSPECTS`,
  sk: `PROSPECT#${padId(prospectId)}`,
});
/** LSI1 sort key of a campaign prospect: the campaign's prospects of one status, in id order. */
export const campaignProspectByStatus = (status: string, prospectId: number) => ({ lsi1sk: `${status}#${padId(prospectId)}` });
/**
 * LSI2 sort key of a campaign prospect that waits for the campaign to run (added without
 * activation, or while it was DRAFT or PAUSED): present only then, so activating the campaign
 * finds them with one Query of lsi2.
 */
export const campaignProspectUnscheduled = (prospectId: number) => ({ lsi2sk: `${UNSCHEDULED_PREFIX}${padId(prospectId)}` });
export const UNSCHEDULED_PREFIX = 'UNSCHEDULED#';
/** Shards of the due-time index: spread due actions over partitions so no one partition runs hot. */
export const DUE_SHARDS = 16;


/**
 * The outreach engine's action of a prospect in a campaign (shared/db/outreach-actions.ts), in a
 * partition per campaign apart from its prospects, so a prospects page never reads them. While due
 * it carries the due-time index keys (`actionDue`).
 */
export const outreachActionKey = (campaignId: number, prospectId: number) => ({
  pk: `CAMPAIGN#${padId(campaignId)}#ACTIONS`,
  sk: `PROSPECT#${padId(prospectId)}`,
});
/**
 * The due-time shard of a prospect's actions (spread evenly: see bucketOf; the id modulo
 * DUE_SHARDS put every prospect one import created in one shard).
 */
export const dueShard = (prospectId: number): number => bucketOf('due', prospectId, DUE_SHARDS);
/**
 * GSI2 keys of a due action: its due time in the prospect's shard (`dueShard`), so the scheduler
 * finds due actions with one Query per shard and no partition runs hot. (Actions written before
 * the hash sit in shard `prospectId % DUE_SHARDS` until their next write: the scheduler reads
 * every shard, so they are found all the same.)
 */
export const actionDue = (dueAt: string, campaignId: number, prospectId: number) => ({
  gsi2pk: `DUE#${String(dueShard(prospectId)).padStart(2, '0')}`,
  gsi2sk: `${dueAt}#${padId(campaignId)}#${padId(prospectId)}`,
});
/** LSI2 sort key of an action parked while its campaign is paused: resume finds them with one Query of lsi2. */
export const actionParked = (prospectId: number) => ({ lsi2sk: `${PARKED_PREFIX}${padId(prospectId)}` });
export const PARKED_PREFIX = 'PARKED#';
/** The scheduler's lease of one due-time shard (and how far it has dispatched it). */
export const dispatchLeaseKey = (shard: number) => ({ pk: `DISPATCH#${String(shard).padStart(2, '0')}`, sk: 'LEASE' });
/** A campaign's daily send counter of one kind, in the campaign's local day. */
export const campaignSendCounterKey = (campaignId: number, day: string, kind: string) => ({
  pk: `SENDCOUNT#CAMPAIGN#${padId(campaignId)}#${day}`,
  sk: kind,
});
/** A sender account's daily send counter of one kind, in UTC days. */
export const accountSendCounterKey = (accountId: number, day: string, kind: string) => ({
  pk: `SENDCOUNT#ACCOUNT#${padId(accountId)}#${day}`,
  sk: kind,
});
/** The outcome record of one action: a prospect's stint in a campaign and the node (append-only). */
export const actionOutcomeKey = (campaignId: number, prospectId: number, stint: string, nodeId: number) => ({
  pk: `CAMPAIGN#${padId(campaignId)}#OUTCOMES`,
  sk: `PROSPECT#${padId(prospectId)}#${stint}#NODE#${padId(nodeId)}`,
});
/** An email the engine sent, under the provider's tracking id (its Message-ID arrives with the mail_sent webhook). */
export const sentEmailKey = (trackingId: string) => ({ pk: pkEndingIn('SENT_EMAIL#', trackingId), sk: 'SENT_EMAIL' });
/**
 * An email we sent, by its RFC Message-ID: the link the provider's `mail_sent` webhook puts, naming
 * the tracking id of the sent-email item. A reply's In-Reply-To finds the email through it.
 */
export const messageIdLinkKey = (messageId: string) => ({ pk: pkEndingIn('MESSAGE_ID#', messageId), sk: 'SENT_EMAIL' });
/** The same, as sent-email items written before 2026-11-26 carry it (gsi1): still read for their replies. */
export const sentEmailByMessageId = (messageId: string) => ({ gsi1pk: pkEndingIn('MESSAGE_ID#', messageId), gsi1sk: 'SENT_EMAIL' });
/** Something a prospect did in a campaign (accepted, replied, bounced, unsubscribed): append-only, one per `ref`. */
export const campaignEventKey = (campaignId: number, kind: string, prospectId: number, ref: string) => ({
  pk: `CAMPAIGN#${padId(campaignId)}#EVENTS`,
  sk: skEndingIn(`${kind}#${padId(prospectId)}#`, ref),
});
/** A campaign's analytics: one item per day in the campaign's timezone (sk DAY#YYYY-MM-DD) and one all-time item (sk TOTAL). */
export const campaignStatsKey = (campaignId: number, day: string | null) => ({
  pk: `CAMPAIGN#${padId(campaignId)}#STATS`,
  sk: day === null ? 'TOTAL' : `DAY#${day}`,
});
/** What analytics knows of a prospect in a campaign: its first contact, its last send, its first reply. */
export const campaignReachKey = (campaignId: number, prospectId: number) => ({
  pk: `CAMPAIGN#${padId(campaignId)}#REACH`,
  sk: `PROSPECT#${padId(prospectId)}`,
});
/** A workspace's analytics per campaign and sender account: per UTC day (sk DAY#...) and all-time (sk TOTAL#...). */
export const workspaceStatsKey = (workspaceId: number, day: string | null, campaignId: number, accountId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#STATS`,
  sk: `${day === null ? 'TOTAL' : `DAY#${day}`}#CAMPAIGN#${padId(campaignId)}#ACCOUNT#${padId(accountId)}`,
});
/** A message of a prospect's conversation (oldest first by sk). */
export const conversationMessageKey = (workspaceId: number, prospectId: number, sentAt: string, ref: string) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#CONVERSATION#${padId(prospectId)}`,
  sk: skEndingIn(`MSG#${sentAt}#`, ref),
});
export const CONVERSATION_MESSAGE_PREFIX = 'MSG#';
/** A conversation's summary; gsi1 orders the workspace's inbox by its newest message. */
export const conversationKey = (workspaceId: number, prospectId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#CONVERSATION#${padId(prospectId)}`,
  sk: 'SUMMARY',
});
export const conversationsByRecency = (workspaceId: number, lastAt: string, prospectId: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#INBOX`,
  gsi1sk: `${lastAt}#${padId(prospectId)}`,
});
/** Where an inbound message leads: a provider chat of one of our accounts, or a network member seen by the engine, to a prospect. */
export const inboundLinkKey = (link: string) => ({ pk: pkEndingIn('INBOUND_LINK#', link), sk: 'LINK' });

/**
 * An entry of a workspace's suppression list, under its value (`EMAIL#<address>` or
 * `DOMAIN#<domain>`, lowercase): the uniqueness guard of the value and what the engine's check
 * reads, one BatchGetItem of the address's key and its domain's.
 */
export const suppressionKey = (workspaceId: number, type: 'EMAIL' | 'DOMAIN', value: string) => ({
  pk: pkEndingIn(`SUPPRESSION#${padId(workspaceId)}#${type}#`, value),
  sk: 'SUPPRESSION',
});
/**
 * A suppression entry's id to its value: finding an entry by id with strongly consistent reads
 * (gsi1 cannot be read so: a DELETE just after the add could miss the entry). Written before the
 * entry; one whose entry has another id (a lost race, an entry deleted since) names nothing.
 */
export const suppressionIdKey = (workspaceId: number, id: number) => ({ pk: `SUPPRESSIONID#${padId(workspaceId)}#${padId(id)}`, sk: 'SUPPRESSIONID' });
/** GSI1 on a suppression entry: the workspace's list in id order (paging; finding an entry written before its id item). */
export const suppressionsByWorkspace = (workspaceId: number, id: number) => ({
  gsi1pk: `WORKSPACE#${padId(workspaceId)}#SUPPRESSIONS`,
  gsi1sk: `SUPPRESSION#${padId(id)}`,
});

/** A fixed-window request counter: requests of one subject (an IP address) to one scope in one window (its start, ISO). */
export const requestCounterKey = (scope: string, subject: string, windowStart: string) => ({
  pk: `REQUESTS#${scope}#${subject}`,
  sk: windowStart,
});

/**
 * Login attempts since the last success of one (email, IP address) pair: the exponential delay's
 * count. The address follows the last `#` (an email's domain has none), so no two pairs share a key.
 */
export const loginAttemptsKey = (normalizedEmail: string, ip: string) => ({ pk: pkEndingIn('LOGIN_ATTEMPTS#', `${normalizedEmail}#${ip}`), sk: 'ATTEMPTS' });

/** A workspace's credit balance (the one item every debit, grant and refund updates, conditionally). */
export const creditBalanceKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: 'CREDITS' });
/**
 * One entry of a workspace's append-only credit ledger, in a partition of its own (the balance's
 * partition holds the workspace's lists): time-ordered, so the ledger reads newest first.
 */
export const creditLedgerKey = (workspaceId: number, at: string, entryId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#LEDGER`,
  sk: `${CREDIT_LEDGER_PREFIX}${at}#${padId(entryId)}`,
});
export const CREDIT_LEDGER_PREFIX = 'ENTRY#';
/** Guard of a grant made once per workspace under a name (the development workspace's welcome credits). */
export const creditGrantKey = (workspaceId: number, name: string) => ({ pk: `WORKSPACE#${padId(workspaceId)}`, sk: `CREDITGRANT#${name}` });

/** An enrichment job: its workspace, list, type, selection (compressed ids), counts and credits. */
export const enrichmentJobKey = (jobId: number) => ({ pk: `ENRICHJOB#${padId(jobId)}`, sk: 'JOB' });
/** GSI2 keys of a job while it runs: the sweeper finds unfinished jobs with one Query, oldest first. */
export const enrichmentJobRunning = (createdAt: string, jobId: number) => ({
  gsi2pk: 'ENRICHJOBS#RUNNING',
  gsi2sk: `${createdAt}#${padId(jobId)}`,
});
/**
 * One chunk of an enrichment job while it is being worked (the prospects of one queue message),
 * beside the members of the job's list: its presence is what shows those prospects as 'Loading…'
 * in the list's pages and keeps them out of the list's next count and selection. Deleted when the
 * chunk's results are applied.
 */
export const enrichmentChunkKey = (listId: number, jobId: number, chunk: number) => ({
  pk: `LEADLIST#${padId(listId)}#MEMBERS`,
  sk: `${ENRICHMENT_CHUNK_PREFIX}${padId(jobId)}#${String(chunk).padStart(5, '0')}`,
});
export const ENRICHMENT_CHUNK_PREFIX = 'ENRICHING#';
/**
 * The lease one enrichment start holds in its workspace from choosing its prospects until their
 * chunks are written: a prospect is in several lists, so two starts in one workspace (any lists)
 * never choose it both.
 */
/** A lease that makes requests on one thing take turns (shared/db/request-leases.ts), by the thing's name. */
export const requestLeaseKey = (name: string) => ({ pk: `LEASE#${name}`, sk: 'LEASE' });
export const enrichmentStartKey = (workspaceId: number) => ({ pk: `WORKSPACE#${padId(workspaceId)}#ENRICH_START`, sk: 'LEASE' });
/**
 * A running enrichment job, in its workspace's partition from its debit to its completion: the
 * jobs whose chunks show prospects as 'Loading…' in every list and keep them out of every count and
 * selection of the workspace (strongly consistent, unlike the sweeper's index).
 */
export const enrichmentRunningKey = (workspaceId: number, jobId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#ENRICHING`,
  sk: `JOB#${padId(jobId)}`,
});
/**
 * An enrichment job that completed, by completion time in its workspace's partition, for a quarter
 * of an hour (TTL): a start that waited for the start lease while the job ran leaves out what the
 * job searched, so a request repeated at once (a retried sync call) is not charged twice.
 */
export const enrichmentCompletedKey = (workspaceId: number, completedAt: string, jobId: number) => ({
  pk: `WORKSPACE#${padId(workspaceId)}#ENRICHED`,
  sk: `${completedAt}#${padId(jobId)}`,
});
