import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import { type SignedUpUser, type TestStack, createKey, seedProspect, signUp, startTestStack } from '../../support/test-stack';

const ERRORS = {
  noProfileUrl: { error: 'Prospect has no network profile URL to check against' },
  noActiveAccount: { error: 'No active network account is connected to this workspace' },
  accountNotUsable: { error: 'Requested network account not found or not active in this workspace' },
  notFound: { error: 'Prospect not found' },
  forbidden: { error: 'Access denied' },
};
const PROVIDER_FAILED = 'Failed to fetch prospect profile from the network provider';

interface Workspace {
  user: SignedUpUser;
  key: string;
}

describe('connection status against the sandbox provider', () => {
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let aliceNetwork: number;
  let bobNetwork: number;

  const register = async (workspace: Workspace, providerAccountId: string) => {
    const response = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', {
      apiKey: workspace.key,
      body: { provider_account_id: providerAccountId },
    });
    expect([200, 201]).toContain(response.status);
    return response.body.account.id;
  };

  const newWorkspace = async (): Promise<Workspace> => {
    const user = await signUp(stack);
    return { user, key: (await createKey(stack, user)).key };
  };

  const check = (workspace: Workspace, prospectId: number | string, query = '') =>
    stack.call(`GET`, `/public/prospects/${prospectId}/connection-status/${query}`, { apiKey: workspace.key });

  const prospectWith = (workspace: Workspace, slug: string) =>
    seedProspect(stack, { workspaceId: workspace.user.workspaceId, networkProfileUrl: `https://www.linkedin.com/in/${slug}/` });

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, settings: { providerTimeoutMs: 500 } });
    alice = await newWorkspace();
    bob = await newWorkspace();
    aliceNetwork = await register(alice, 'sbx-network-dev');
    bobNetwork = await register(bob, (await stack.provider.control.createAccount({ type: 'LINKEDIN' })).id);
  });
  afterAll(async () => stack?.stop());
  beforeEach(async () => {
    await stack.provider.control.clearFaults();
  });

  it.each([
    ['FIRST_DEGREE', true, 1],
    ['SECOND_DEGREE', false, 2],
    ['THIRD_DEGREE', false, 3],
    ['OUT_OF_NETWORK', false, null],
  ] as const)('maps %s to is_connected %s and connection_level %s', async (distance, connected, level) => {
    const slug = `dist-${distance.toLowerCase()}`;
    await stack.provider.control.setProfile(slug, { network_distance: distance });
    const prospect = await prospectWith(alice, slug);
    const response = await check(alice, prospect);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      is_connected: connected,
      connection_level: level,
      network_distance: distance,
      checked_with_account_id: aliceNetwork,
    });
  });

  it.each([
    ['a%25b', 'a%b'],
    ['j%C3%B3zef-w', 'józef-w'],
  ])('asks for the profile of a URL whose slug holds characters a path must escape (%s is %s)', async (written, slug) => {
    await stack.provider.control.setProfile(slug, { network_distance: 'FIRST_DEGREE' });
    const prospect = await prospectWith(alice, written);
    const response = await check(alice, prospect);
    expect([response.status, response.body]).toEqual([
      200,
      { success: true, is_connected: true, connection_level: 1, network_distance: 'FIRST_DEGREE', checked_with_account_id: aliceNetwork },
    ]);
  });

  it('asks the provider on every request (no caching): a change shows at once', async () => {
    await stack.provider.control.setProfile('live-check', { network_distance: 'SECOND_DEGREE' });
    const prospect = await prospectWith(alice, 'live-check');
    await stack.provider.control.clearRequests();
    expect((await check(alice, prospect)).body).toEqual({
      success: true,
      is_connected: false,
      connection_level: 2,
      network_distance: 'SECOND_DEGREE',
      checked_with_account_id: aliceNetwork,
    });
    await stack.provider.control.setProfile('live-check', { network_distance: 'FIRST_DEGREE' });
    expect((await check(alice, prospect)).body).toEqual({
      success: true,
      is_connected: true,
      connection_level: 1,
      network_distance: 'FIRST_DEGREE',
      checked_with_account_id: aliceNetwork,
    });
    const calls = (await stack.provider.control.requests()).filter((r) => r.path === '/api/v1/users/live-check');
    expect(calls.map((call) => [call.method, call.query])).toEqual([
      ['GET', { account_id: 'sbx-network-dev' }],
      ['GET', { account_id: 'sbx-network-dev' }],
    ]);
  });

  it('does not count a pending invitation as connected, and does once it is accepted', async () => {
    const provider = new UnipileProvider({ baseUrl: stack.provider.url, accessToken: stack.provider.accessToken, timeoutMs: 2_000 });
    await stack.provider.control.setProfile('invited-person', { network_distance: 'SECOND_DEGREE' });
    const profile = await provider.getProfile({ accountId: 'sbx-network-dev', identifier: 'invited-person' });
    const { invitationId } = await provider.sendInvitation({ accountId: 'sbx-network-dev', providerId: profile.providerId, message: 'Hi' });
    const prospect = await prospectWith(alice, 'invited-person');

    const pending = await check(alice, prospect);
    expect(pending.body).toEqual({
      success: true,
      is_connected: false,
      connection_level: 2,
      network_distance: 'SECOND_DEGREE',
      checked_with_account_id: aliceNetwork,
    });

    await stack.provider.control.acceptInvitation(invitationId);
    expect((await check(alice, prospect)).body).toEqual({
      success: true,
      is_connected: true,
      connection_level: 1,
      network_distance: 'FIRST_DEGREE',
      checked_with_account_id: aliceNetwork,
    });
  });

  it('uses the account given in account_id, else the first active network account', async () => {
    const second = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    const secondId = await register(alice, second.id);
    await stack.provider.control.setProfile('per-account', { network_distance: 'THIRD_DEGREE' });
    await stack.provider.control.setProfile('per-account', { network_distance: 'FIRST_DEGREE', account_id: second.id });
    const prospect = await prospectWith(alice, 'per-account');

    expect((await check(alice, prospect)).body).toEqual({
      success: true,
      is_connected: false,
      connection_level: 3,
      network_distance: 'THIRD_DEGREE',
      checked_with_account_id: aliceNetwork,
    });
    expect((await check(alice, prospect, `?account_id=${secondId}`)).body).toEqual({
      success: true,
      is_connected: true,
      connection_level: 1,
      network_distance: 'FIRST_DEGREE',
      checked_with_account_id: secondId,
    });
  });

  it('serves the in-app path with a session and refuses the wrong credentials on each path', async () => {
    await stack.provider.control.setProfile('in-app', { network_distance: 'FIRST_DEGREE' });
    const prospect = await prospectWith(alice, 'in-app');
    const inApp = await stack.call('GET', `/prospects/${prospect}/connection-status/`, { token: alice.user.token });
    expect(inApp.status).toBe(200);
    expect(inApp.body).toEqual({
      success: true,
      is_connected: true,
      connection_level: 1,
      network_distance: 'FIRST_DEGREE',
      checked_with_account_id: aliceNetwork,
    });

    const inAppWithKey = await stack.call('GET', `/prospects/${prospect}/connection-status/`, { apiKey: alice.key });
    expect(inAppWithKey.status).toBe(401);
    expect(inAppWithKey.body).toEqual({
      error: 'Authentication required',
      message: 'Log in and send the session cookie or an Authorization: Bearer <token> header',
    });
    const publicWithSession = await stack.call('GET', `/public/prospects/${prospect}/connection-status/`, { token: alice.user.token });
    expect(publicWithSession.status).toBe(401);
    expect(publicWithSession.body).toEqual({ error: 'Missing API key', message: 'Provide X-API-Key header' });
  });

  it('answers 404 for an unknown or malformed prospect id and 403 for another workspace’s prospect', async () => {
    for (const id of ['999999999', 'abc', '0', '-5']) {
      const response = await check(alice, id);
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual(ERRORS.notFound);
    }
    const bobsProspect = await prospectWith(bob, 'bobs-prospect');
    const response = await check(alice, bobsProspect);
    expect(response.status).toBe(403);
    expect(response.body).toEqual(ERRORS.forbidden);
  });

  it('answers 400 when the prospect has no usable network profile URL', async () => {
    for (const url of [null, 'not a url', 'https://www.linkedin.com/']) {
      const prospect = await seedProspect(stack, { workspaceId: alice.user.workspaceId, networkProfileUrl: url });
      const response = await check(alice, prospect);
      expect(response.status, String(url)).toBe(400);
      expect(response.body).toEqual(ERRORS.noProfileUrl);
    }
  });

  it('answers 400 when the workspace has no active network account (none, only a mailbox, or a disconnected one)', async () => {
    const carol = await newWorkspace();
    const prospect = await prospectWith(carol, 'carols-prospect');
    const none = await check(carol, prospect);
    expect(none.status).toBe(400);
    expect(none.body).toEqual(ERRORS.noActiveAccount);

    await register(carol, 'sbx-mailbox-dev');
    expect((await check(carol, prospect)).body).toEqual(ERRORS.noActiveAccount);

    const network = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    await register(carol, network.id);
    expect((await check(carol, prospect)).status).toBe(200);
    // The provider reports the account needs its credentials again: it is no longer active here.
    const status = await stack.provider.control.setAccountStatus(network.id, 'CREDENTIALS');
    expect(status.deliveries.map((d) => d.status)).toEqual([200]);
    const after = await check(carol, prospect);
    expect(after.status).toBe(400);
    expect(after.body).toEqual(ERRORS.noActiveAccount);
  });

  it('answers 400 for an account_id that is unknown, another workspace’s, a mailbox or inactive', async () => {
    const prospect = await prospectWith(alice, 'account-choice');
    const mailbox = await register(alice, (await stack.provider.control.createAccount({ type: 'MAIL' })).id);
    const inactive = await stack.provider.control.createAccount({ type: 'LINKEDIN', status: 'STOPPED' });
    const inactiveId = await register(alice, inactive.id);
    for (const accountId of [999_999_999, bobNetwork, mailbox, inactiveId]) {
      const response = await check(alice, prospect, `?account_id=${accountId}`);
      expect(response.status, String(accountId)).toBe(400);
      expect(response.body).toEqual(ERRORS.accountNotUsable);
    }
    const malformed = await check(alice, prospect, '?account_id=abc');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'account_id must be a positive integer' });
    // In the documented order: the prospect's checks come first.
    const unknown = await check(alice, 987_654_321, '?account_id=abc');
    expect([unknown.status, unknown.body]).toEqual([404, ERRORS.notFound]);
    const foreign = await check(alice, await prospectWith(bob, 'bobs-order'), '?account_id=abc');
    expect([foreign.status, foreign.body]).toEqual([403, ERRORS.forbidden]);
  });

  it.each([
    ['a 5xx', { kind: 'status', status: 503 }, 'The provider answered HTTP 503 (errors/provider_error)'],
    ['a 4xx', { kind: 'status', status: 404 }, 'The provider answered HTTP 404 (errors/invalid_request)'],
    ['a 429', { kind: 'rate_limit' }, 'The provider answered HTTP 429 (errors/too_many_requests)'],
    ['no answer within the bound', { kind: 'timeout' }, 'The provider did not answer within 500 ms'],
  ] as const)('answers 502 when the provider gives %s', async (_label, fault, details) => {
    const prospect = await prospectWith(alice, 'provider-trouble');
    await stack.provider.control.addFault({ ...fault, path: '/api/v1/users/', times: 1 });
    const response = await check(alice, prospect);
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ error: PROVIDER_FAILED, details });
    // The fault was for one call only: the next check works.
    expect((await check(alice, prospect)).status).toBe(200);
  });

  it('answers 502 when the provider refuses our access (its 401)', async () => {
    const prospect = await prospectWith(alice, 'provider-401');
    const disconnected = await stack.provider.control.createAccount({ type: 'LINKEDIN' });
    const id = await register(alice, disconnected.id);
    // The provider knows the account is disconnected before its status webhook reaches us.
    await stack.provider.control.addFault({ kind: 'status', status: 401, path: '/api/v1/users/', times: 1 });
    const response = await check(alice, prospect, `?account_id=${id}`);
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ error: PROVIDER_FAILED, details: 'The provider answered HTTP 401 (errors/invalid_request)' });
  });

  it('reads prospects imported through the lead-list API', async () => {
    const list = await stack.call<{ lead_list: { id: number } }>('POST', '/public/lead-lists/', { apiKey: alice.key, body: { name: 'Import' } });
    expect(list.status).toBe(201);
    const imported = await stack.call('POST', `/public/lead-lists/${list.body.lead_list.id}/import/`, {
      apiKey: alice.key,
      body: { leads: [{ first_name: 'Imported', last_name: 'Lead', network_profile_url: 'https://www.linkedin.com/in/imported-lead/' }] },
    });
    expect(imported.status).toBe(200);
    const leads = await stack.call<{ prospects: { id: number }[] }>('GET', `/public/lead-lists/${list.body.lead_list.id}/leads/`, {
      apiKey: alice.key,
    });
    const [lead] = leads.body.prospects;
    await stack.provider.control.setProfile('imported-lead', { network_distance: 'FIRST_DEGREE' });
    const response = await check(alice, lead?.id ?? 0);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      is_connected: true,
      connection_level: 1,
      network_distance: 'FIRST_DEGREE',
      checked_with_account_id: aliceNetwork,
    });
  });
});
