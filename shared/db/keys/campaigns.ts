import { bucketOf } from '../../domain/buckets';
import { padId, pkEndingIn } from './key-parts';

/** Campaigns, their flow, their prospects, the engine's actions, due-time index, counters and outcomes. */

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
/**
 * LSI3 sort key of an action waiting for a later day because its campaign's cap was reached: by
 * kind, then its due time. A position given back finds the latest of them with one Query (Limit,
 * descending) and pulls it forward, whichever day counted it.
 */
export const actionPastCap = (kind: string, dueAt: string, prospectId: number) => ({ lsi3sk: `${pastCapPrefix(kind)}${dueAt}#${padId(prospectId)}` });
export const pastCapPrefix = (kind: string) => `PASTCAP#${kind}#`;
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
