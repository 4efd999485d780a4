import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { Distance, Fault, Invitation, RecordedRequest, SandboxAccount, SentItem } from './sandbox-shared';

/** A typed client of the sandbox's control API (what tests and demo scripts drive it with). */
export class SandboxProviderControl {
  constructor(readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const payload = (await response.json()) as T;
    if (!response.ok) throw new Error(`sandbox control ${method} ${path}: HTTP ${response.status} ${JSON.stringify(payload)}`);
    return payload;
  }

  reset() {
    return this.call<{ ok: true }>('POST', '/_sandbox/reset');
  }

  state() {
    return this.call<{
      accounts: SandboxAccount[];
      invitations: Invitation[];
      sent: SentItem[];
      webhooks: { id: string; request_url: string; source: string }[];
      faults: (Fault & { remaining: number | null })[];
    }>(
      'GET',
      '/_sandbox/state',
    );
  }

  requests() {
    return this.call<{ requests: RecordedRequest[] }>('GET', '/_sandbox/requests').then((r) => r.requests);
  }

  clearRequests() {
    return this.call<{ ok: true }>('DELETE', '/_sandbox/requests');
  }

  createAccount(input: { id?: string; name?: string; type?: string; status?: string } = {}) {
    return this.call<SandboxAccount>('POST', '/_sandbox/accounts', input);
  }

  /** The provider forgets an account (deleted there): calls through it answer 404. */
  deleteAccount(accountId: string) {
    return this.call<{ ok: true }>('DELETE', `/_sandbox/accounts/${encodeURIComponent(accountId)}`);
  }

  /** Changes an account's status and posts the provider's account-status webhook. */
  setAccountStatus(accountId: string, status: string) {
    return this.call<{ account: SandboxAccount; deliveries: { url: string; status: number | null }[] }>(
      'POST',
      `/_sandbox/accounts/${encodeURIComponent(accountId)}/status`,
      { status },
    );
  }

  /** Sets a profile's network distance (for one account, or for every account). */
  setProfile(identifier: string, input: { network_distance?: Distance; account_id?: string; first_name?: string; last_name?: string }) {
    return this.call<Record<string, unknown>>('PUT', `/_sandbox/profiles/${encodeURIComponent(identifier)}`, input);
  }

  /**
   * Makes matching provider calls fail: an HTTP status (with a provider error type if given), a
   * provider error type at its documented status (`kind: 'error'`), a 429, or no answer at all.
   * Answers the fault as stored, with the status it will answer.
   */
  addFault(fault: Fault) {
    return this.call<Fault & { remaining: number | null }>('POST', '/_sandbox/faults', fault);
  }

  clearFaults() {
    return this.call<{ ok: true }>('DELETE', '/_sandbox/faults');
  }

  /** Marks an invitation accepted and posts the provider's new_relation webhook. */
  acceptInvitation(invitationId: string) {
    return this.call<{ deliveries: { url: string; status: number | null }[] }>(
      'POST',
      `/_sandbox/invitations/${encodeURIComponent(invitationId)}/accept`,
    );
  }

  /**
   * Makes a prospect reply and posts the provider's webhook: `message_received` in the account's
   * chat with them (a network account), or `mail_received` in the thread of the newest email the
   * mailbox sent them (`from` is then their address). `kind` makes it an auto-reply or a bounce;
   * `message_id` reuses a provider id (a replayed webhook).
   */
  reply(input: {
    account_id: string;
    from: string;
    text: string;
    chat_id?: string;
    channel?: 'NETWORK' | 'EMAIL';
    kind?: 'reply' | 'auto_reply' | 'bounce';
    message_id?: string;
    subject?: string;
    /** Email: the address of the thread our mailbox wrote to, when the answer comes from another one. */
    thread_with?: string;
  }) {
    return this.call<{ message_id: string; chat_id?: string; in_reply_to?: { message_id: string; id: string | null } | null; deliveries: { url: string; status: number | null }[] }>(
      'POST',
      '/_sandbox/replies',
      input,
    );
  }

  /** Sets the MX records the sandbox DNS resolver answers for a domain. */
  setMx(domain: string, records: { exchange: string; priority: number }[]) {
    return this.call<{ domain: string; records: { exchange: string; priority: number }[] }>('PUT', `/_sandbox/dns/mx/${encodeURIComponent(domain)}`, { records });
  }

  /** Finishes a hosted-connect page: creates (or reconnects) the account and notifies notify_url. */
  completeHostedLink(linkId: string, input: { type?: string; name?: string } = {}) {
    return this.call<{ account: SandboxAccount; status: string; notify_status: number | null }>(
      'POST',
      `/_sandbox/hosted-links/${encodeURIComponent(linkId)}/complete`,
      input,
    );
  }
}

/** A free TCP port on `host` (the local gateway's, chosen before the handlers load). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The provider webhook sources our inbound endpoint handles (or acknowledges, for now). */
export const PROVIDER_WEBHOOK_SOURCES = ['account_status', 'messaging', 'users', 'email'] as const;

/**
 * Registers our inbound endpoint with the provider, through the provider's own webhooks API, the
 * way a deployment is set up: one registration per source, each carrying our shared secret in
 * X-Webhook-Secret (the provider signs nothing in API v1) and a JSON content type.
 */
export async function registerProviderWebhooks(provider: { url: string; accessToken: string }, requestUrl: string, secret: string): Promise<void> {
  for (const source of PROVIDER_WEBHOOK_SOURCES) {
    const response = await fetch(`${provider.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'X-API-KEY': provider.accessToken, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        request_url: requestUrl,
        source,
        name: `outreach-${source}`,
        headers: [
          { key: 'Content-Type', value: 'application/json' },
          { key: 'X-Webhook-Secret', value: secret },
        ],
      }),
    });
    if (response.status !== 201) throw new Error(`Could not register the ${source} webhook with the provider: HTTP ${response.status}`);
  }
}
