import { forbidden, notFound, upstreamError, validationError } from '../errors';
import { type NetworkProvider, describeProviderFailure, isProviderFailure } from '../providers/provider';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import { type SenderAccount, isActiveAccount } from '../sender-accounts/sender-account';
import { type ConnectionStatus, networkIdentifier, toConnectionStatus } from './connection-status';
import type { ProspectLookup } from './ports';

export interface ConnectionServiceDeps {
  prospects: ProspectLookup;
  accounts: Pick<SenderAccountRepository, 'listForWorkspace' | 'get'>;
  provider: Pick<NetworkProvider, 'getProfile'>;
}

/** The spec's error texts (Errors table, connection-status rows). */
export const CONNECTION_ERRORS = {
  noProfileUrl: 'Prospect has no network profile URL to check against',
  noActiveAccount: 'No active network account is connected to this workspace',
  accountNotUsable: 'Requested network account not found or not active in this workspace',
  prospectNotFound: 'Prospect not found',
  providerFailed: 'Failed to fetch prospect profile from the network provider',
} as const;

const isActiveNetwork = (account: SenderAccount | undefined): account is SenderAccount =>
  account !== undefined && account.type === 'NETWORK' && isActiveAccount(account);

/** The live first-degree check: one provider call per request, nothing cached. */
export function createConnectionService(deps: ConnectionServiceDeps) {
  async function accountToUse(workspaceId: number, accountId: number | undefined): Promise<SenderAccount> {
    if (accountId !== undefined) {
      const account = await deps.accounts.get(workspaceId, accountId);
      if (!isActiveNetwork(account)) throw validationError(CONNECTION_ERRORS.accountNotUsable);
      return account;
    }
    const first = (await deps.accounts.listForWorkspace(workspaceId)).find(isActiveNetwork);
    if (!first) throw validationError(CONNECTION_ERRORS.noActiveAccount);
    return first;
  }

  return {
    /**
     * `accountId`: reads the account asked for (none: the first active one) and throws when the
     * request's is malformed; it is read only after the prospect's checks, in the documented order
     * (integrations.md: 404, 403, no profile URL, then the account; before 2026-11-28 a malformed
     * one hid the 404 and the 403: a probe).
     */
    async check(workspaceId: number, prospectId: number, accountId: () => number | undefined = () => undefined): Promise<ConnectionStatus> {
      const prospect = await deps.prospects.findProspect(prospectId);
      if (!prospect) throw notFound(CONNECTION_ERRORS.prospectNotFound);
      if (prospect.workspaceId !== workspaceId) throw forbidden();
      const identifier = prospect.networkProfileUrl ? networkIdentifier(prospect.networkProfileUrl) : undefined;
      if (!identifier) throw validationError(CONNECTION_ERRORS.noProfileUrl);
      const account = await accountToUse(workspaceId, accountId());
      try {
        const profile = await deps.provider.getProfile({ accountId: account.providerAccountId, identifier });
        return toConnectionStatus(profile, account.id);
      } catch (error) {
        if (isProviderFailure(error)) throw upstreamError(CONNECTION_ERRORS.providerFailed, describeProviderFailure(error));
        throw error;
      }
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
