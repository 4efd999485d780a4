import { padId, pkEndingIn, skEndingIn } from './key-parts';

/** Sent emails and their Message-IDs, conversations and the inbox, inbound links, the suppression list. */

/** An email the engine sent, under the provider's tracking id (its Message-ID arrives with the mail_sent webhook). */
export const sentEmailKey = (trackingId: string) => ({ pk: pkEndingIn('SENT_EMAIL#', trackingId), sk: 'SENT_EMAIL' });
/**
 * An email we sent, by its RFC Message-ID: the link the provider's `mail_sent` webhook puts, naming
 * the tracking id of the sent-email item. A reply's In-Reply-To finds the email through it.
 */
export const messageIdLinkKey = (messageId: string) => ({ pk: pkEndingIn('MESSAGE_ID#', messageId), sk: 'SENT_EMAIL' });
/** The same, as sent-email items written before 2026-11-26 carry it (gsi1): still read for their replies. */
export const sentEmailByMessageId = (messageId: string) => ({ gsi1pk: pkEndingIn('MESSAGE_ID#', messageId), gsi1sk: 'SENT_EMAIL' });
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
