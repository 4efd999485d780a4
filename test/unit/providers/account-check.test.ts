import { describe, expect, it } from 'vitest';
import { classifyFailure, isLostAnswer } from '../../../shared/domain/engine/provider-answers';
import { ACCOUNT_CHECK_FAILED, ACCOUNT_NOT_FOUND, checkingAccounts } from '../../../shared/domain/providers/account-check';
import { type NetworkProvider, type ProviderAccount, ProviderFailure } from '../../../shared/domain/providers/provider';

const notFound = () => new ProviderFailure('http', 'HTTP 404', 404, 'errors/resource_not_found');

/** A provider whose profile read fails with `failure`, and whose account lookup answers `account` (or fails with it). */
function providerWith(failure: unknown, account: ProviderAccount | undefined | Error) {
  const lookups: string[] = [];
  const provider = {
    getProfile: async () => {
      throw failure;
    },
    getAccount: async (accountId: string) => {
      lookups.push(accountId);
      if (account instanceof Error) throw account;
      return account;
    },
  } as unknown as NetworkProvider;
  return { provider: checkingAccounts(provider), lookups };
}

const known: ProviderAccount = { id: 'acc-1', type: 'LINKEDIN', name: 'Known', status: 'OK', ownProviderUserId: null };
const profileRead = (provider: NetworkProvider) => provider.getProfile({ accountId: 'acc-1', identifier: 'someone' });

describe('checkingAccounts: a 404 through an account the provider does not know', () => {
  it('fails the call as an account problem when the account is unknown too', async () => {
    const { provider, lookups } = providerWith(notFound(), undefined);
    const error = await profileRead(provider).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'http', status: 404, type: ACCOUNT_NOT_FOUND });
    expect(classifyFailure(error)).toEqual({ kind: 'account', reason: ACCOUNT_NOT_FOUND, quota: false });
    expect(lookups).toEqual(['acc-1']);
  });

  it('keeps the 404 (a prospect problem) when the provider knows the account', async () => {
    const original = notFound();
    const { provider } = providerWith(original, known);
    expect(await profileRead(provider).catch((e: unknown) => e)).toBe(original);
    expect(classifyFailure(original)).toEqual({ kind: 'prospect', reason: 'errors/resource_not_found', bounce: false });
  });

  it.each([
    ['no answer in time', new ProviderFailure('timeout', 'no answer in 8000 ms')],
    ['a connection lost', new ProviderFailure('network', 'socket hang up')],
    ['a gateway 504', new ProviderFailure('http', 'HTTP 504', 504, 'errors/request_timeout')],
    ['a 429', new ProviderFailure('http', 'HTTP 429', 429, 'errors/too_many_requests')],
  ])('fails as a retried 503 when the check gets %s: never the 404, never a lost answer (the 404 said nothing went out)', async (_, failure) => {
    const { provider } = providerWith(notFound(), failure);
    const error = await profileRead(provider).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'http', status: 503, type: ACCOUNT_CHECK_FAILED });
    expect(classifyFailure(error)).toEqual({ kind: 'transient', reason: ACCOUNT_CHECK_FAILED });
    expect(isLostAnswer(error)).toBe(false);
  });

  it('fails with the check’s own account problem (a credentials refusal pauses the account)', async () => {
    const disconnected = new ProviderFailure('http', 'HTTP 401', 401, 'errors/disconnected_account');
    const { provider } = providerWith(notFound(), disconnected);
    const error = await profileRead(provider).catch((e: unknown) => e);
    expect(error).toBe(disconnected);
    expect(classifyFailure(error)).toEqual({ kind: 'account', reason: 'errors/disconnected_account', quota: false });
  });

  it('asks nothing for other failures', async () => {
    const refused = new ProviderFailure('http', 'HTTP 422', 422, 'errors/invalid_recipient');
    const { provider, lookups } = providerWith(refused, undefined);
    expect(await profileRead(provider).catch((e: unknown) => e)).toBe(refused);
    expect(lookups).toEqual([]);
  });
});
