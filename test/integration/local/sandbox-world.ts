import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type SandboxProvider, startSandboxProvider } from '../../../infra/local/sandbox-provider';
import { ProviderFailure } from '../../../shared/domain/providers/provider';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import type { ManualClock } from '../../../shared/time/clock';
import { type Receiver, startReceiver } from '../../support/receiver';

export const NETWORK = 'sbx-network-dev';
export const MAILBOX = 'sbx-mailbox-dev';
export const NOW = '2025-03-04T09:30:00.000Z';

export interface SandboxWorld {
  sandbox: SandboxProvider;
  receiver: Receiver;
  adapter: UnipileProvider;
}

/** The failure the adapter throws for a call, or a test failure when it succeeds. */
export const failureOf = async (call: Promise<unknown>): Promise<ProviderFailure> => {
  try {
    await call;
  } catch (error) {
    if (error instanceof ProviderFailure) return error;
    throw error;
  }
  throw new Error('the call succeeded');
};
export const fields = (failure: ProviderFailure) => ({ kind: failure.kind, status: failure.status, type: failure.type, message: failure.message });

/** A sandbox provider on the clock, a receiver of its webhooks (email and messaging registered), and the real adapter. */
export async function startSandboxWorld(clock: ManualClock): Promise<SandboxWorld> {
  const receiver = await startReceiver();
  const sandbox = await startSandboxProvider({ accessToken: 'sandbox-test-token', clock, webhookRetryDelaysMs: [20, 20] });
  const adapter = new UnipileProvider({ baseUrl: sandbox.url, accessToken: sandbox.accessToken, timeoutMs: 2_000 });
  const world = { sandbox, receiver, adapter };
  const { registerWebhook } = sandboxHelpers(() => world);
  await registerWebhook('email');
  await registerWebhook('messaging');
  return world;
}

/** Calls of the sandbox's control API and provider API; `world` is read at each call. */
export function sandboxHelpers(world: () => SandboxWorld) {
  const controlPost = async (path: string, body: unknown) => {
    const response = await fetch(`${world().sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  /** A multipart provider call the adapter does not make (custom headers, posting into a chat). */
  const providerForm = async (path: string, form: Record<string, string>) => {
    const data = new FormData();
    for (const [key, value] of Object.entries(form)) data.append(key, value);
    const response = await fetch(`${world().sandbox.url}${path}`, { method: 'POST', headers: { 'X-API-KEY': world().sandbox.accessToken }, body: data });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const registerWebhook = async (source: string) => {
    const response = await fetch(`${world().sandbox.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'X-API-KEY': world().sandbox.accessToken, 'content-type': 'application/json' },
      body: JSON.stringify({
        request_url: `${world().receiver.url}/${source}`,
        source,
        name: `test-${source}`,
        headers: [
          { key: 'Content-Type', value: 'application/json' },
          { key: 'X-Webhook-Secret', value: 'shh' },
        ],
      }),
    });
    expect(response.status).toBe(201);
  };

  /** The JSON bodies the receiver got on `/<source>`, once there are `count` of them. */
  const deliveries = async (source: string, count: number): Promise<Record<string, unknown>[]> => {
    await expect.poll(() => world().receiver.requests.filter((request) => request.path === `/${source}`).length, { timeout: 5_000 }).toBe(count);
    return world().receiver.requests.filter((request) => request.path === `/${source}`).map((request) => JSON.parse(request.body));
  };

  const secondDegree = async (slug: string) => {
    await world().sandbox.control.setProfile(slug, { network_distance: 'SECOND_DEGREE' });
    return (await world().adapter.getProfile({ accountId: NETWORK, identifier: slug })).providerId;
  };
  const firstDegree = async (slug: string) => {
    await world().sandbox.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
    return (await world().adapter.getProfile({ accountId: NETWORK, identifier: slug })).providerId;
  };
  return { controlPost, providerForm, registerWebhook, deliveries, secondDegree, firstDegree };
}

/**
 * A test file's sandbox world: started before its tests (handed to `set`), reset before each test,
 * stopped after them.
 */
export function useSandboxWorld(clock: ManualClock, set: (world: SandboxWorld) => void): void {
  let world: SandboxWorld | undefined;
  beforeAll(async () => {
    world = await startSandboxWorld(clock);
    set(world);
  });
  afterAll(async () => {
    await world?.sandbox.stop();
    await world?.receiver.stop();
  });
  beforeEach(async () => {
    await world?.sandbox.control.reset();
    world?.receiver.reset();
  });
}
