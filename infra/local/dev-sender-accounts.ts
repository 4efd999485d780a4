import { SANDBOX_DEV_ACCOUNTS } from './sandbox-provider';

export interface DevSenderAccount {
  id: number;
  type: string;
  status: string;
  provider_account_id: string;
}

/**
 * Makes sure the development workspace has the sandbox provider's network account and mailbox
 * registered. Registration is idempotent (the same workspace gets its existing account back), so
 * every `npm start` simply registers both again, through the API itself.
 */
export async function ensureDevSenderAccounts(baseUrl: string, apiKey: string): Promise<DevSenderAccount[]> {
  const accounts: DevSenderAccount[] = [];
  for (const sandbox of [SANDBOX_DEV_ACCOUNTS.network, SANDBOX_DEV_ACCOUNTS.mailbox]) {
    const response = await fetch(`${baseUrl}/api/v1/public/accounts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ provider_account_id: sandbox.id, name: sandbox.name }),
    });
    const body = (await response.json().catch(() => ({}))) as { account?: DevSenderAccount };
    if ((response.status !== 200 && response.status !== 201) || !body.account) {
      throw new Error(`Could not register the sandbox account ${sandbox.id}: HTTP ${response.status} ${JSON.stringify(body)}`);
    }
    accounts.push(body.account);
  }
  return accounts;
}
