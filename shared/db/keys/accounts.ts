import { padId, pkEndingIn } from './key-parts';

/** Sender accounts, user webhooks and their deliveries, inbound messages. */

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
