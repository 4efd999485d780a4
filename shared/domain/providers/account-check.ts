import { type NetworkProvider, ProviderFailure, isProviderFailure } from './provider';

/**
 * The error type recorded when a call through an account answered 404 and the provider does not
 * know the account either. Ours, not the provider's: its 404 names no type that tells a missing
 * account from a missing profile or chat (providers.md 1.2: `errors/resource_not_found` for both).
 */
export const ACCOUNT_NOT_FOUND = 'errors/account_not_found';

/** The error type recorded when the check after a 404 could not be made (ours): retried, as a 503 is. */
export const ACCOUNT_CHECK_FAILED = 'errors/account_check_failed';

/**
 * The provider, with every call made through an account checked when it answers 404: the provider
 * answers 404 both for a profile it does not know and for an account it does not know (one deleted
 * at the provider, or a local sandbox restarted without it). The engine ends a prospect's sequence
 * on the first and must pause the account on the second, or every prospect sent through a deleted
 * account would end, one after another. So a 404 is followed by `GET /accounts/{id}`: unknown there
 * too, the call fails with {@link ACCOUNT_NOT_FOUND} (an account problem); known, with the 404 as it
 * was. A check that fails itself fails the call as a 503 ({@link ACCOUNT_CHECK_FAILED}: retried, and
 * never a lost answer, since the 404 was a definite answer: nothing went out), or with its own error
 * when that is an account problem (a 4xx other than 429: credentials, a restriction); never with the
 * 404, so a prospect's sequence ends only on a 404 the account is known for. One more call per 404,
 * none otherwise.
 */
export function checkingAccounts(provider: NetworkProvider): NetworkProvider {
  async function checked<T>(accountId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(isProviderFailure(error) && error.kind === 'http' && error.status === 404)) throw error;
      const account = await provider.getAccount(accountId).catch((failure: unknown) => {
        if (isProviderFailure(failure) && failure.kind === 'http' && (failure.status ?? 0) < 500 && failure.status !== 429) throw failure;
        const why = isProviderFailure(failure) ? failure.message : String(failure);
        throw new ProviderFailure('http', `Could not ask the provider about account ${accountId} after a 404: ${why}`, 503, ACCOUNT_CHECK_FAILED);
      });
      if (account) throw error;
      throw new ProviderFailure('http', `The provider does not know account ${accountId}`, 404, ACCOUNT_NOT_FOUND);
    }
  }
  return {
    getProfile: (input) => checked(input.accountId, () => provider.getProfile(input)),
    sendInvitation: (input) => checked(input.accountId, () => provider.sendInvitation(input)),
    sendMessage: (input) => checked(input.accountId, () => provider.sendMessage(input)),
    findSentMessage: (input) => checked(input.accountId, () => provider.findSentMessage(input)),
    sendChatMessage: (input) => checked(input.accountId, () => provider.sendChatMessage(input)),
    sendEmail: (input) => checked(input.accountId, () => provider.sendEmail(input)),
    listAccounts: () => provider.listAccounts(),
    getAccount: (accountId) => provider.getAccount(accountId),
    createConnectLink: (request) => provider.createConnectLink(request),
  };
}
