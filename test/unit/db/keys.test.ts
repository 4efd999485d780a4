import { describe, expect, it } from 'vitest';
import {
  apiKeyCredentialKey,
  apiKeyRecordKey,
  idShardKey,
  membershipByWorkspace,
  membershipKey,
  padId,
  sessionKey,
  userEmailKey,
  userKey,
  workspaceKey,
} from '../../../shared/db/keys';

// Keys are a persisted contract: these strings must not change without a migration.
describe('key builders', () => {
  it('pads ids to 16 digits so sort keys order numerically', () => {
    expect(padId(42)).toBe('0000000000000042');
    expect(padId(9) < padId(10)).toBe(true);
    expect(padId(2 ** 53 - 1)).toBe('9007199254740991');
  });

  it('builds the account keys', () => {
    expect(userKey(7)).toEqual({ pk: 'USER#0000000000000007', sk: 'USER' });
    expect(userEmailKey('a@b.co')).toEqual({ pk: 'EMAIL#a@b.co', sk: 'EMAIL' });
    expect(workspaceKey(8)).toEqual({ pk: 'WORKSPACE#0000000000000008', sk: 'WORKSPACE' });
    expect(membershipKey(7, 8)).toEqual({ pk: 'USER#0000000000000007', sk: 'MEMBERSHIP#0000000000000008' });
    expect(membershipByWorkspace(8, 7)).toEqual({ gsi1pk: 'WORKSPACE#0000000000000008#MEMBERS', gsi1sk: 'USER#0000000000000007' });
    expect(sessionKey('abc')).toEqual({ pk: 'SESSION#abc', sk: 'SESSION' });
  });

  it('builds the API key keys', () => {
    expect(apiKeyRecordKey(7, 9)).toEqual({ pk: 'USER#0000000000000007', sk: 'APIKEY#0000000000000009' });
    expect(apiKeyCredentialKey('0a1b2c3d4e5f')).toEqual({ pk: 'APIKEY_PREFIX#0a1b2c3d4e5f', sk: 'CREDENTIAL' });
    expect(idShardKey(3)).toEqual({ pk: 'IDSHARD#003', sk: 'IDSHARD' });
  });
});
