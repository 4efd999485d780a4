/**
 * Key builders: the only place that knows how items are keyed. Numeric ids are zero-padded so
 * that sort keys order like the numbers they hold. These strings are a persisted contract.
 */
const ID_WIDTH = 16;

export const padId = (id: number): string => String(id).padStart(ID_WIDTH, '0');

export const userKey = (userId: number) => ({ pk: `USER#${padId(userId)}`, sk: 'USER' });

/** Uniqueness guard for an email address; holds the owning user id. */
export const userEmailKey = (normalizedEmail: string) => ({ pk: `EMAIL#${normalizedEmail}`, sk: 'EMAIL' });

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
 * An API key's credential, addressed by its public prefix: what the authorizer reads, in one
 * GetItem, to check a presented key. Deleted when the key is rotated or revoked.
 */
export const apiKeyCredentialKey = (prefix: string) => ({ pk: `APIKEY_PREFIX#${prefix}`, sk: 'CREDENTIAL' });

export const sessionKey = (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'SESSION' });

/** One of the id allocator's counter shards. */
export const idShardKey = (shard: number) => ({ pk: `IDSHARD#${String(shard).padStart(3, '0')}`, sk: 'IDSHARD' });
