/**
 * The sandbox network/email provider: a fake HTTP server speaking the provider's (Unipile API v1)
 * wire protocol for the calls this service makes, so the real adapter and the provider's own SDK
 * run end to end on one machine. Started by `npm start` and by the tests (see local-stack.ts).
 *
 * Provider API (`X-API-KEY` required): accounts (list, get), user profiles with network distance,
 * invitations, chats and messages (multipart), emails (multipart), hosted-connect links and
 * webhook registrations. Errors use the provider's `{status, type, title, detail}` body.
 *
 * Control API (`/_sandbox/...`, no key; for tests and demos, loopback only): create accounts and
 * change their status, set a profile's network distance, make calls fail (an HTTP status, a
 * provider error type, 429, or a hang), accept an invitation, make a prospect reply, complete a
 * hosted-connect page. The last four post the provider's webhooks to the registered URLs exactly
 * as the real provider would; so does every email sent (`mail_sent`, after the send's answer).
 * docs/integrations.md lists every endpoint with curl examples. The routes are in
 * sandbox-network-routes.ts, sandbox-mail-routes.ts and sandbox-control.ts; this file holds the
 * state they share and the server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../shared/time/clock';
import { SandboxProviderControl } from './sandbox-client';
import { controlRoutes } from './sandbox-control';
import { mailAndWebhookRoutes } from './sandbox-mail-routes';
import { networkRoutes } from './sandbox-network-routes';
import { SandboxDns } from './sandbox-inbound';
import {
  type Chat,
  type Distance,
  type Fault,
  HttpError,
  type HostedLink,
  type Invitation,
  MAX_RECORDED_REQUESTS,
  type Profile,
  type RecordedRequest,
  type Route,
  SANDBOX_DEV_ACCOUNTS,
  type SandboxAccount,
  type SandboxProvider,
  type SandboxProviderOptions,
  type SentItem,
  type SentMail,
  type Webhook,
  defaultDistance,
  headersAsSent,
  newId,
  notFound,
  parseBody,
  readBody,
  send,
  titleCase,
  titleOf,
} from './sandbox-shared';

// The sandbox's parts, re-exported: callers import everything from here.
export * from './sandbox-client';
export * from './sandbox-shared';

export async function startSandboxProvider(options: SandboxProviderOptions): Promise<SandboxProvider> {
  const log = options.log ?? (() => {});
  const retryDelays = options.webhookRetryDelaysMs ?? [2_000, 4_000, 8_000, 16_000, 32_000];
  const accounts = new Map<string, SandboxAccount>();
  const profiles = new Map<string, Profile>();
  /** The same profiles by provider id (every lookup is by key: a benchmark sends thousands). */
  const profilesByProviderId = new Map<string, Profile>();
  const invitations = new Map<string, Invitation>();
  /** The pending invitation per `${accountId}|${providerId}`. */
  const pendingInvitations = new Map<string, Invitation>();
  const chats = new Map<string, Chat>();
  /** The 1:1 chat per `${accountId}|${attendee provider id}` (a network keeps one conversation per pair). */
  const chatsByPair = new Map<string, Chat>();
  const mails = new Map<string, SentMail>();
  const webhooks = new Map<string, Webhook>();
  const hostedLinks = new Map<string, HostedLink>();
  const sent: SentItem[] = [];
  const dns = new SandboxDns();
  const requests: RecordedRequest[] = [];
  const faults: (Fault & { remaining: number | null })[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let baseUrl = '';

  const clock = options.clock ?? systemClock;
  const now = () => clock.now().toISOString();

  function addAccount(input: { id?: string; name?: string; type?: string; status?: string }): SandboxAccount {
    const id = input.id ?? newId('sbx-acc-');
    const account: SandboxAccount = {
      id,
      name: input.name ?? `Sandbox ${input.type === 'LINKEDIN' || !input.type ? 'network account' : 'mailbox'} ${id}`,
      type: input.type ?? 'LINKEDIN',
      status: input.status ?? 'OK',
      ownUserId: `ACoSELF${createHash('sha256').update(id).digest('hex').slice(0, 16)}`,
      createdAt: now(),
    };
    accounts.set(id, account);
    return account;
  }

  function reset(): void {
    accounts.clear();
    profiles.clear();
    profilesByProviderId.clear();
    invitations.clear();
    pendingInvitations.clear();
    chats.clear();
    chatsByPair.clear();
    mails.clear();
    dns.clear();
    hostedLinks.clear();
    sent.length = 0;
    requests.length = 0;
    faults.length = 0;
    addAccount(SANDBOX_DEV_ACCOUNTS.network);
    addAccount(SANDBOX_DEV_ACCOUNTS.mailbox);
  }
  reset();

  // The accounts a restart finds again (options.accountsFile): written whenever a request changed
  // them, through a file renamed into place (a stop half-way through a write leaves the last one).
  // The two fixed accounts are there on every start, as npm start registers them every time.
  let savedAccounts = '';
  const accountsText = () => JSON.stringify([...accounts.values()], null, 2);
  if (options.accountsFile && existsSync(options.accountsFile)) {
    try {
      for (const account of JSON.parse(readFileSync(options.accountsFile, 'utf8')) as SandboxAccount[]) accounts.set(account.id, account);
    } catch (error) {
      log(`sandbox provider: ${options.accountsFile} is not readable (${String(error)}); starting with the fixed accounts only`);
    }
    savedAccounts = accountsText();
  }
  function saveAccounts(): void {
    if (!options.accountsFile) return;
    const text = accountsText();
    if (text === savedAccounts) return;
    writeFileSync(`${options.accountsFile}.tmp`, text);
    renameSync(`${options.accountsFile}.tmp`, options.accountsFile);
    savedAccounts = text;
  }

  /** A profile by public identifier or provider id; unknown public identifiers get a stable made-up profile. */
  function profileFor(identifier: string, create = true): Profile | undefined {
    const found = profiles.get(identifier) ?? profilesByProviderId.get(identifier);
    if (found || !create) return found;
    if (identifier.startsWith('ACo')) return undefined;
    const [first = 'Sandbox', ...rest] = identifier.split('-');
    const profile: Profile = {
      publicIdentifier: identifier,
      providerId: `ACo${createHash('sha256').update(identifier).digest('hex').slice(0, 24)}`,
      firstName: titleCase(first),
      lastName: titleCase(rest.join(' ') || 'Prospect'),
      headline: 'Sandbox profile',
      distances: new Map([['*', defaultDistance(identifier)]]),
    };
    profiles.set(identifier, profile);
    profilesByProviderId.set(profile.providerId, profile);
    return profile;
  }

  const pairKey = (accountId: string, providerId: string) => `${accountId}|${providerId}`;

  function openChat(accountId: string, attendees: string[], id = newId('chat_')): Chat {
    const chat: Chat = { id, accountId, attendees };
    chats.set(id, chat);
    const [only] = attendees;
    if (attendees.length === 1 && only !== undefined && !chatsByPair.has(pairKey(accountId, only))) chatsByPair.set(pairKey(accountId, only), chat);
    return chat;
  }

  /** The account's 1:1 chat with `attendee` (a network keeps one conversation per pair), made on first use. */
  const chatWith = (accountId: string, attendee: string): Chat => chatsByPair.get(pairKey(accountId, attendee)) ?? openChat(accountId, [attendee]);

  const distanceOf = (profile: Profile, accountId: string): Distance =>
    profile.distances.get(accountId) ?? profile.distances.get('*') ?? 'OUT_OF_NETWORK';

  function accountView(account: SandboxAccount) {
    const isNetwork = account.type === 'LINKEDIN';
    return {
      object: 'Account',
      id: account.id,
      name: account.name,
      type: account.type,
      created_at: account.createdAt,
      connection_params: isNetwork
        ? { im: { id: account.ownUserId, publicIdentifier: `${account.id}-self`, username: account.name } }
        : { mail: { id: account.id, username: `${account.id}@sandbox.example` } },
      groups: [],
      sources: [{ id: `${account.id}_${isNetwork ? 'MESSAGING' : 'MAILS'}`, status: account.status }],
    };
  }

  function profileView(profile: Profile, accountId: string) {
    const distance = distanceOf(profile, accountId);
    const pending = pendingInvitations.has(pairKey(accountId, profile.providerId));
    return {
      object: 'UserProfile',
      provider: 'LINKEDIN',
      provider_id: profile.providerId,
      public_identifier: profile.publicIdentifier,
      public_profile_url: `https://www.linkedin.com/in/${profile.publicIdentifier}/`,
      first_name: profile.firstName,
      last_name: profile.lastName,
      headline: profile.headline,
      websites: [],
      is_relationship: distance === 'FIRST_DEGREE',
      network_distance: distance,
      ...(pending ? { invitation: { type: 'SENT', status: 'PENDING' } } : {}),
    };
  }

  function activeAccount(accountId: unknown): SandboxAccount {
    const account = typeof accountId === 'string' ? accounts.get(accountId) : undefined;
    if (!account) throw notFound('Account not found');
    if (!['OK', 'SYNC_SUCCESS', 'CREATION_SUCCESS', 'RECONNECTED'].includes(account.status)) {
      throw new HttpError(401, 'errors/disconnected_account', 'Disconnected account', 'The account must be reconnected');
    }
    return account;
  }

  /** Posts a webhook payload to every registration of `source`, retrying in the background on failure. */
  async function emit(source: string, payload: Record<string, unknown>): Promise<{ url: string; status: number | null }[]> {
    const targets = [...webhooks.values()].filter((webhook) => webhook.source === source);
    return Promise.all(
      targets.map(async (webhook) => {
        const body = JSON.stringify({ ...payload, webhook_name: webhook.name });
        const attempt = async (): Promise<number | null> => {
          try {
            const response = await fetch(webhook.requestUrl, {
              method: 'POST',
              headers: Object.fromEntries(webhook.headers.map((header) => [header.key, header.value])),
              body,
              signal: AbortSignal.timeout(30_000),
            });
            await response.arrayBuffer();
            return response.status;
          } catch (error) {
            log(`sandbox provider: webhook to ${webhook.requestUrl} failed: ${String(error)}`);
            return null;
          }
        };
        const status = await attempt();
        const retry = (index: number) => {
          const delay = retryDelays[index];
          if (delay === undefined) return;
          if (stopped) return;
          const timer = setTimeout(async () => {
            timers.delete(timer);
            const again = await attempt();
            if (again !== 200) retry(index + 1);
          }, delay);
          timers.add(timer);
        };
        // The real provider retries until it gets a 200 within 30 s (5 retries).
        if (status !== 200) retry(0);
        return { url: webhook.requestUrl, status };
      }),
    );
  }

  function takeFault(method: string, path: string): (Fault & { remaining: number | null }) | undefined {
    const fault = faults.find((f) => (!f.method || f.method === method) && (!f.path || path.startsWith(f.path)));
    if (!fault) return undefined;
    if (fault.skip) {
      fault.skip -= 1;
      return undefined;
    }
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) faults.splice(faults.indexOf(fault), 1);
    }
    return fault;
  }

  const providerRoutes: Route[] = [
    ...networkRoutes({ accounts, invitations, pendingInvitations, chats, sent, now, accountView, activeAccount, profileFor, profileView, distanceOf, pairKey, chatWith, openChat }),
    ...mailAndWebhookRoutes({ activeAccount, mails, sent, now, emit, log, hostedLinks, webhooks, baseUrl: () => baseUrl }),
  ];

  const control = controlRoutes({
    accounts, invitations, pendingInvitations, chats, webhooks, hostedLinks, sent, dns, requests, faults,
    reset, addAccount, profileFor, profileView, emit, openChat, chatWith, pairKey, now, log,
  });

  function match(routes: Route[], method: string, path: string) {
    for (const [routeMethod, pattern, handler] of routes) {
      if (routeMethod !== method) continue;
      const found = pattern.exec(path);
      if (found) return { handler, params: found.slice(1).map((part) => decodeURIComponent(part)) };
    }
    return undefined;
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const query = Object.fromEntries(url.searchParams);
    const raw = await readBody(req);
    const isControl = url.pathname.startsWith('/_sandbox/');
    if (url.pathname.startsWith('/hosted/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Sandbox hosted connect</title><p>Sandbox provider: complete this link with POST /_sandbox/hosted-links/&lt;id&gt;/complete.</p>');
      return;
    }
    const recorded: RecordedRequest | undefined = isControl ? undefined : { method, path: url.pathname, query, at: now() };
    let fault: Fault | undefined;
    if (recorded) {
      requests.push(recorded);
      // A long `npm start` session keeps only the latest calls.
      if (requests.length > MAX_RECORDED_REQUESTS) requests.splice(0, requests.length - MAX_RECORDED_REQUESTS);
      if (req.headers['x-api-key'] !== options.accessToken) {
        throw new HttpError(401, 'errors/missing_credentials', 'Missing credentials', 'Provide a valid X-API-KEY header');
      }
      fault = takeFault(method, url.pathname);
      if (fault?.kind === 'timeout') return; // never answers; the connection is closed on stop
      if (fault?.kind === 'rate_limit') {
        throw new HttpError(429, 'errors/too_many_requests', 'Too many requests', 'The provider cannot accept more requests now');
      }
      if (fault?.kind === 'status' || fault?.kind === 'error') {
        const status = fault.status ?? 500;
        if (fault.type) throw new HttpError(status, fault.type, titleOf(fault.type), `Injected by a sandbox fault (HTTP ${status})`);
        throw new HttpError(status, status >= 500 ? 'errors/provider_error' : 'errors/invalid_request', 'Sandbox fault', `Injected HTTP ${status}`);
      }
    }
    const found = match(isControl ? control : providerRoutes, method, url.pathname);
    if (!found) throw notFound(`No route ${method} ${url.pathname}`);
    const body = await parseBody(req, raw);
    if (recorded && url.pathname === '/api/v1/emails' && body.custom_headers !== undefined) recorded.emailHeaders = headersAsSent(body.custom_headers);
    const [status, payload, afterAnswer] = await found.handler({ params: found.params, query, body });
    // `lost_answer`: carried out, but the answer never reaches the caller (which times out).
    if (fault?.kind !== 'lost_answer') send(res, status, payload);
    afterAnswer?.();
  };

  const server: Server = createServer((req, res) => {
    handle(req, res)
      .catch((error: unknown) => {
        if (error instanceof HttpError) {
          send(res, error.status, { status: error.status, type: error.type, title: error.title, ...(error.detail ? { detail: error.detail } : {}) });
          return;
        }
        log(`sandbox provider error: ${String(error)}`);
        send(res, 500, { status: 500, type: 'errors/unexpected_error', title: 'Unexpected error' });
      })
      .then(saveAccounts)
      .catch((error: unknown) => log(`sandbox provider: could not save its accounts: ${String(error)}`));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  baseUrl = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    accessToken: options.accessToken,
    control: new SandboxProviderControl(baseUrl),
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
