import { padId, skEndingIn } from './key-parts';

/** Campaign events and the analytics counters. */

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
