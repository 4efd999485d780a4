import { padId, pkEndingIn } from './key-parts';

/** Users, workspaces, memberships, API keys, sessions, the id allocator, and request counters and leases. */

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

/** A lease that makes requests on one thing take turns (shared/db/request-leases.ts), by the thing's name. */
export const requestLeaseKey = (name: string) => ({ pk: `LEASE#${name}`, sk: 'LEASE' });
