import type { UnipileClient } from 'unipile-node-sdk';
import {
  type ConnectLinkRequest,
  type NetworkDistance,
  type NetworkProvider,
  type ProviderAccount,
  ProviderFailure,
  type ProviderProfile,
} from '../domain/providers/provider';
import { wellFormed } from '../domain/validation';

export interface UnipileProviderOptions {
  /** The provider's base URL (its DSN), e.g. `https://api8.unipile.com:13851`; the sandbox's locally. */
  baseUrl: string;
  accessToken: string;
  /** Bound on every call; the SDK has no abort, so a late answer is dropped when it comes. */
  timeoutMs: number;
}

const DISTANCES = new Set<string>(['FIRST_DEGREE', 'SECOND_DEGREE', 'THIRD_DEGREE', 'OUT_OF_NETWORK']);

/** Source statuses from worst to best: an account is as healthy as its worst source. */
const STATUS_SEVERITY = ['CREDENTIALS', 'PERMISSIONS', 'ERROR', 'STOPPED', 'CONNECTING'];

const EMAIL_PROVIDERS = ['GOOGLE', 'OUTLOOK', 'MAIL'] as const;

type Loose = Record<string, unknown>;

/** A message's text as compared when looking for one we sent: the provider may normalise line breaks and spacing. */
const comparableText = (text: string): string => text.normalize('NFC').replace(/\s+/g, ' ').trim();

const str = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

function accountStatus(sources: unknown): string {
  const statuses = Array.isArray(sources) ? sources.map((source) => String((source as Loose)?.status ?? '')) : [];
  if (statuses.length === 0) return 'CONNECTING';
  if (statuses.every((status) => status === 'OK')) return 'OK';
  return STATUS_SEVERITY.find((status) => statuses.includes(status)) ?? statuses.find((status) => status !== 'OK') ?? 'OK';
}

function toAccount(raw: Loose): ProviderAccount {
  const im = ((raw.connection_params as Loose | undefined)?.im ?? {}) as Loose;
  return {
    id: String(raw.id),
    // The provider's text, as its webhooks' is: an unpaired surrogate made U+FFFD (a name echoed with
    // one made the accounts list unreadable to strict JSON parsers, before 2026-11-29: fuzzing probe).
    name: wellFormed(String(raw.name ?? raw.id)),
    type: String(raw.type ?? ''),
    status: accountStatus(raw.sources),
    ownProviderUserId: str(im.id),
  };
}

function toProfile(raw: Loose): ProviderProfile {
  const distance = typeof raw.network_distance === 'string' && DISTANCES.has(raw.network_distance) ? raw.network_distance : null;
  const invitation = raw.invitation as Loose | undefined;
  return {
    providerId: String(raw.provider_id ?? raw.id ?? ''),
    publicIdentifier: str(raw.public_identifier),
    firstName: str(raw.first_name),
    lastName: str(raw.last_name),
    networkDistance: distance as NetworkDistance | null,
    invitationPending: invitation?.type === 'SENT' && invitation.status === 'PENDING',
  };
}

type UnipileSdk = typeof import('unipile-node-sdk');
let sdkModule: Promise<UnipileSdk> | undefined;
/**
 * The SDK is loaded on first use: it compiles its request schemas when imported (about 600 ms on
 * the bench machine), which would otherwise weigh on every cold start of every function that
 * merely could reach the provider.
 */
const loadSdk = (): Promise<UnipileSdk> => {
  sdkModule ??= import('unipile-node-sdk');
  return sdkModule;
};

/** The provider's error body is RFC 7807-like: `{status, type, title, detail}`. */
function toFailure(error: unknown, sdk: UnipileSdk): unknown {
  const { UnipileError, UnsuccessfulRequestError } = sdk;
  if (error instanceof ProviderFailure) return error;
  if (error instanceof UnsuccessfulRequestError) {
    const body = (error.body ?? {}) as Loose;
    const status = typeof body.status === 'number' ? body.status : undefined;
    const type = typeof body.type === 'string' ? body.type : undefined;
    return new ProviderFailure('http', String(body.title ?? 'Provider request failed'), status, type);
  }
  // fetch() rejects with a TypeError when the provider cannot be reached at all.
  if (error instanceof TypeError || error instanceof UnipileError) return new ProviderFailure('network', error.message);
  return error;
}

/** The provider port over the provider's own client, `unipile-node-sdk`. */
export class UnipileProvider implements NetworkProvider {
  private client: UnipileClient | undefined;
  private readonly baseUrl: string;

  constructor(private readonly options: UnipileProviderOptions) {
    // The SDK appends `/api/v1/...` to `protocol://host[:port]`: a trailing slash would double it.
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** Runs one SDK call within the time bound, turning every failure into a ProviderFailure. */
  private async call<T>(run: (client: UnipileClient) => Promise<T>): Promise<T> {
    const sdk = await loadSdk();
    this.client ??= new sdk.UnipileClient(this.baseUrl, this.options.accessToken);
    const client = this.client;
    let timer: NodeJS.Timeout | undefined;
    const pending = run(client);
    pending.catch(() => {}); // a call that lost the race may still fail later
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ProviderFailure('timeout', `The provider did not answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
    });
    try {
      return await Promise.race([pending, timeout]);
    } catch (error) {
      throw toFailure(error, sdk);
    } finally {
      clearTimeout(timer);
    }
  }

  async getProfile(input: { accountId: string; identifier: string }): Promise<ProviderProfile> {
    // The SDK puts the identifier into the path as it is: a slug holding `%`, `?`, `#` or `/` (a
    // profile URL's `a%25b` is the slug `a%b`) named another path, or none (before 2026-11-29).
    const identifier = encodeURIComponent(input.identifier);
    const raw = await this.call((client) => client.users.getProfile({ account_id: input.accountId, identifier }));
    return toProfile(raw as unknown as Loose);
  }

  async sendInvitation(input: { accountId: string; providerId: string; message?: string }): Promise<{ invitationId: string }> {
    const raw = await this.call((client) =>
      client.users.sendInvitation({
        account_id: input.accountId,
        provider_id: input.providerId,
        ...(input.message === undefined ? {} : { message: input.message }),
      }),
    );
    return { invitationId: String((raw as unknown as Loose).invitation_id) };
  }

  async sendMessage(input: { accountId: string; attendeeProviderId: string; text: string }) {
    const raw = (await this.call((client) =>
      client.messaging.startNewChat({ account_id: input.accountId, attendees_ids: [input.attendeeProviderId], text: input.text }),
    )) as unknown as Loose;
    return { chatId: str(raw.chat_id), messageId: str(raw.message_id) };
  }

  async findSentMessage(input: Parameters<NetworkProvider['findSentMessage']>[0]) {
    // A person the account never wrote to may be unknown to the provider as an attendee (404), and
    // a chat may be gone between the two calls: neither holds the message.
    const chats = (await this.unlessNotFound(() =>
      this.call((client) => client.messaging.getAllChatsFromAttendee({ attendee_id: input.attendeeProviderId, account_id: input.accountId, limit: 10 })),
    )) as unknown as Loose | undefined;
    const wanted = comparableText(input.text);
    const since = Date.parse(input.since);
    for (const chat of (chats?.items as Loose[] | undefined) ?? []) {
      const chatId = str(chat.id);
      if (!chatId) continue;
      // Newest first; a lost answer is minutes old, so one page of what came after it holds it.
      const page = (await this.unlessNotFound(() =>
        this.call((client) => client.messaging.getAllMessagesFromChat({ chat_id: chatId, after: input.since, limit: 100 })),
      )) as unknown as Loose | undefined;
      const found = ((page?.items as Loose[] | undefined) ?? []).find(
        (message) =>
          (message.is_sender === 1 || message.is_sender === true) &&
          !input.exclude?.includes(String(message.id)) &&
          comparableText(String(message.text ?? '')) === wanted &&
          !(Date.parse(String(message.timestamp ?? '')) < since),
      );
      const messageId = found ? str(found.id) : null;
      if (messageId) return { chatId, messageId };
    }
    return undefined;
  }

  /** The call's answer, or undefined when the provider answers 404. */
  private async unlessNotFound<T>(run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ProviderFailure && error.kind === 'http' && error.status === 404) return undefined;
      throw error;
    }
  }

  async sendChatMessage(input: { accountId: string; chatId: string; text: string }) {
    // account_id guards against posting into another account's chat; the SDK sends it as an extra form field.
    const raw = (await this.call((client) =>
      client.messaging.sendMessage({ chat_id: input.chatId, text: input.text }, { extra_params: { account_id: input.accountId } }),
    )) as unknown as Loose;
    return { messageId: str(raw.message_id) };
  }

  async sendEmail(input: Parameters<NetworkProvider['sendEmail']>[0]) {
    const raw = await this.call((client) =>
      client.email.send({
        account_id: input.accountId,
        to: [{ identifier: input.to.email, ...(input.to.name ? { display_name: input.to.name } : {}) }],
        subject: input.subject,
        body: input.htmlBody,
        ...(input.replyTo ? { reply_to: input.replyTo } : {}),
        // The SDK sends it in the multipart form as a JSON-stringified array, as it sends `to`.
        ...(input.customHeaders?.length ? { custom_headers: input.customHeaders.map(({ name, value }) => ({ name, value })) } : {}),
      }),
    );
    return { trackingId: String((raw as unknown as Loose).tracking_id) };
  }

  async listAccounts(): Promise<ProviderAccount[]> {
    const accounts: ProviderAccount[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.call((client) => client.account.getAll({ limit: 250, ...(cursor ? { cursor } : {}) }))) as unknown as Loose;
      accounts.push(...((page.items as Loose[] | undefined) ?? []).map(toAccount));
      cursor = str(page.cursor) ?? undefined;
    } while (cursor);
    return accounts;
  }

  async getAccount(accountId: string): Promise<ProviderAccount | undefined> {
    const raw = await this.unlessNotFound(() => this.call((client) => client.account.getOne(accountId)));
    return raw === undefined ? undefined : toAccount(raw as unknown as Loose);
  }

  async createConnectLink(request: ConnectLinkRequest): Promise<{ url: string }> {
    const common = {
      api_url: this.baseUrl,
      expiresOn: request.expiresAt.toISOString(),
      name: request.name,
      ...(request.notifyUrl ? { notify_url: request.notifyUrl } : {}),
      ...(request.successRedirectUrl ? { success_redirect_url: request.successRedirectUrl } : {}),
      ...(request.failureRedirectUrl ? { failure_redirect_url: request.failureRedirectUrl } : {}),
    };
    const raw = await this.call((client) =>
      client.account.createHostedAuthLink(
        request.reconnectAccountId
          ? { ...common, type: 'reconnect', reconnect_account: request.reconnectAccountId }
          : { ...common, type: 'create', providers: request.kind === 'NETWORK' ? ['LINKEDIN'] : [...EMAIL_PROVIDERS] },
      ),
    );
    return { url: String((raw as unknown as Loose).url) };
  }
}
