import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTimestamp, anId } from '../../support/formats';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, signUp, startTestStack } from '../../support/test-stack';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

describe('accounts and sessions over HTTP', () => {
  let stack: TestStack;
  // The service's time stands still here, so times it answers with are exact.
  const clock = new ManualClock('2026-11-23T10:00:00.000Z');

  beforeAll(async () => {
    stack = await startTestStack({ clock });
  });
  afterAll(async () => stack?.stop());

  it('signs up a user with a first workspace and an HttpOnly SameSite=Lax session cookie', async () => {
    const response = await stack.call('POST', '/auth/signup/', {
      body: { email: '  Ada@Example.com ', password: 'a long password', workspace_name: 'Acme' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      token: expect.stringMatching(JWT),
      user: { id: anId(), email: 'ada@example.com', created_at: '2026-11-23T10:00:00.000Z' },
      workspace_id: anId(),
      expires_at: '2026-11-30T10:00:00.000Z',
    });
    expect(JSON.stringify(response.body)).not.toContain('password');
    // Max-Age counts the 7-day session's remaining seconds at the time of the answer.
    expect(response.headers.get('set-cookie')).toBe(`session=${response.body.token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=604800`);

    const workspaces = await stack.call<{ workspaces: { id: number; name: string; is_current: boolean }[] }>('GET', '/workspaces/', {
      token: String(response.body.token),
    });
    expect(workspaces.body.workspaces).toEqual([
      { id: response.body.workspace_id, name: 'Acme', role: 'OWNER', created_at: (response.body.user as { created_at: string }).created_at, is_current: true },
    ]);
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    await signUp(stack, { email: 'twice@example.com' });
    const again = await stack.call('POST', '/auth/signup/', { body: { email: 'TWICE@example.com', password: 'another password' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'An account with this email already exists' });
  });

  it('logs in, and answers a wrong password and an unknown email with the same 401', async () => {
    const user = await signUp(stack);
    const ok = await stack.call('POST', '/auth/login/', { body: { email: user.email.toUpperCase(), password: user.password } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      success: true,
      token: expect.stringMatching(JWT),
      user: { id: user.userId, email: user.email, created_at: aTimestamp() },
      workspace_id: user.workspaceId,
      expires_at: aTimestamp(),
    });
    expect(ok.body.token).not.toBe(user.token);

    const wrong = await stack.call('POST', '/auth/login/', { body: { email: user.email, password: 'not the password' } });
    const unknown = await stack.call('POST', '/auth/login/', { body: { email: 'nobody@example.com', password: 'whatever it is' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid email or password' });
    // A password longer than any account can have is just a wrong one.
    const tooLong = await stack.call('POST', '/auth/login/', { body: { email: user.email, password: 'x'.repeat(257) } });
    expect([tooLong.status, tooLong.body]).toEqual([401, { error: 'Invalid email or password' }]);
    // One as long as a body may be is not counted character by character (that took the heap).
    const bodySized = await stack.call('POST', '/auth/login/', { body: { email: user.email, password: 'x'.repeat(250_000) } });
    expect([bodySized.status, bodySized.body]).toEqual([401, { error: 'Invalid email or password' }]);
    // 256 emoji are 256 characters: such a password signs up and logs in (a family, 11 UTF-16 units, is one).
    const emoji = await signUp(stack, { password: `${'🔑'.repeat(255)}👨‍👩‍👧‍👦` });
    expect((await stack.call('POST', '/auth/login/', { body: { email: emoji.email, password: emoji.password } })).status).toBe(200);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('accepts the session as a cookie or a Bearer token, and logout ends it', async () => {
    const user = await signUp(stack);
    expect((await stack.call('GET', '/auth/me/', { token: user.token })).status).toBe(200);
    const viaCookie = await stack.call('GET', '/auth/me/', { headers: { Cookie: `other=1; session=${user.token}` } });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toEqual({
      success: true,
      user: { id: user.userId, email: user.email, created_at: aTimestamp() },
      workspace_id: user.workspaceId,
      auth: 'session',
    });

    const logout = await stack.call('POST', '/auth/logout/', { token: user.token });
    expect(logout.status).toBe(200);
    expect(logout.headers.get('set-cookie')).toBe('session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0');
    const after = await stack.call('GET', '/auth/me/', { token: user.token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Authentication required', message: 'The session has expired or was logged out; log in again' });
    // A cookie whose escapes do not decode is a wrong session, not the authorizer's failure (a 500 before 2026-11-29).
    const malformed = await stack.call('GET', '/auth/me/', { headers: { Cookie: 'session=%E0%A4%A' } });
    expect([malformed.status, malformed.body]).toEqual([401, { error: 'Authentication required', message: 'The session has expired or was logged out; log in again' }]);
    // Nothing presented: the spec's missing-key answer.
    const none = await stack.call('GET', '/auth/me/', {});
    expect([none.status, none.body]).toEqual([401, { error: 'Missing API key', message: 'Provide X-API-Key header' }]);
  });

  it('refuses a change made with the cookie by a page of another site, and sets no cookie on its login (CSRF)', async () => {
    const user = await signUp(stack);
    const cookie = `session=${user.token}`;
    const refused = {
      error: 'Cross-site request refused',
      message: "A change made with the session cookie must come from this API's own site; or send the session as Authorization: Bearer <token>",
    };
    const keysOf = async () => (await stack.call<{ api_keys: unknown[] }>('GET', '/api-keys/', { headers: { Cookie: cookie } })).body.api_keys;
    // What a form on another site makes a browser send: the cookie, a text/plain body holding JSON,
    // and the browser's word on where it comes from (Sec-Fetch-Site, or Origin from an older one).
    const form = { 'Content-Type': 'text/plain' };
    for (const [label, headers] of [
      ['cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
      ['a sibling subdomain', { 'Sec-Fetch-Site': 'same-site' }],
      ['an older browser', { Origin: 'https://evil.example' }],
      ['a sandboxed frame', { Origin: 'null' }],
    ] as const) {
      const forged = await stack.call('POST', '/api-keys/', { headers: { Cookie: cookie, ...form, ...headers }, rawBody: '{"name":"csrf","x":"="}' });
      expect([forged.status, forged.body], label).toEqual([401, refused]);
      // A logout takes no body: refused all the same (a page elsewhere cannot log the user out).
      expect((await stack.call('POST', '/auth/logout/', { headers: { Cookie: cookie, ...headers } })).status, label).toBe(401);
    }
    expect(await keysOf()).toEqual([]);
    // The app's own page, and a client that is no browser (curl with the cookie), go through.
    const base = new URL(stack.baseUrl);
    expect((await stack.call('POST', '/api-keys/', { headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' }, body: { name: 'app' } })).status).toBe(201);
    expect((await stack.call('POST', '/api-keys/', { headers: { Cookie: cookie, Origin: base.origin }, body: { name: 'old browser, same site' } })).status).toBe(201);
    expect((await stack.call('POST', '/api-keys/', { headers: { Cookie: cookie, ...form }, rawBody: '{"name":"curl"}' })).status).toBe(201);
    // A Bearer token is never sent by a browser on its own: from anywhere.
    expect((await stack.call('POST', '/api-keys/', { token: user.token, headers: { 'Sec-Fetch-Site': 'cross-site' }, body: { name: 'script' } })).status).toBe(201);
    expect(await keysOf()).toHaveLength(4);

    // Login CSRF: a login from another site's page gets its token in the body, and no cookie.
    const credentials = { email: user.email, password: user.password };
    const crossSiteLogin = await stack.call('POST', '/auth/login/', { headers: { 'Sec-Fetch-Site': 'cross-site' }, body: credentials });
    expect([crossSiteLogin.status, crossSiteLogin.headers.get('set-cookie')]).toEqual([200, null]);
    expect(crossSiteLogin.body.token).toMatch(JWT);
    const ownLogin = await stack.call('POST', '/auth/login/', { headers: { 'Sec-Fetch-Site': 'same-origin' }, body: credentials });
    expect(ownLogin.headers.get('set-cookie')).toBe(`session=${ownLogin.body.token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=604800`);
  });

  it('rejects forged and tampered session tokens', async () => {
    const user = await signUp(stack);
    const [header, payload] = user.token.split('.');
    const forged = `${header}.${payload}.AAAA`;
    for (const token of [forged, 'not-a-jwt']) {
      const response = await stack.call('GET', '/auth/me/', { token });
      expect(response.status, token).toBe(401);
      expect(response.body).toEqual({ error: 'Authentication required', message: 'The session has expired or was logged out; log in again' });
    }
  });

  it('session-only routes refuse API keys and missing sessions with a clear 401', async () => {
    const user = await signUp(stack);
    const key = await stack.call('POST', '/api-keys/', { token: user.token, body: { name: 'k' } });
    const viaKey = await stack.call('POST', '/auth/logout/', { apiKey: String(key.body.key) });
    expect(viaKey.status).toBe(401);
    expect(viaKey.body).toEqual({
      error: 'Authentication required',
      message: 'Log in and send the session cookie or an Authorization: Bearer <token> header',
    });
  });

  it('creates and switches workspaces, and refuses a workspace not linked to the user with 403', async () => {
    const user = await signUp(stack);
    const other = await signUp(stack);
    const created = await stack.call<{ workspace: { id: number; name: string } }>('POST', '/workspaces/', {
      token: user.token,
      body: { name: 'Second' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, workspace: { id: anId(), name: 'Second', role: 'OWNER', created_at: aTimestamp(), is_current: false } });

    const selected = await stack.call('POST', `/workspaces/${created.body.workspace.id}/select/`, { token: user.token });
    expect(selected.status).toBe(200);
    const me = await stack.call('GET', '/auth/me/', { token: user.token });
    expect(me.body.workspace_id).toBe(created.body.workspace.id);

    // A key created now belongs to the selected workspace.
    const key = await stack.call('POST', '/api-keys/', { token: user.token, body: { name: 'in second' } });
    const viaKey = await stack.call('GET', '/auth/me/', { apiKey: String(key.body.key) });
    expect(viaKey.body).toEqual({
      success: true,
      user: { id: user.userId, email: user.email, created_at: aTimestamp() },
      workspace_id: created.body.workspace.id,
      auth: 'apiKey',
    });

    const denied = await stack.call('POST', `/workspaces/${other.workspaceId}/select/`, { token: user.token });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'Access denied' });
    const listed = await stack.call<{ workspaces: { id: number }[] }>('GET', '/workspaces/', { token: user.token });
    expect(listed.body.workspaces.map((w) => w.id).sort()).toEqual([user.workspaceId, created.body.workspace.id].sort());
  });

  it('validates sign-up and login bodies with clear 400s', async () => {
    const cases: [string, unknown, string][] = [
      ['/auth/signup/', {}, 'email is required'],
      ['/auth/signup/', { email: 'a@b.co' }, 'password is required'],
      ['/auth/signup/', { email: 'not an email', password: 'long enough' }, 'email must be a valid email address'],
      ['/auth/signup/', { email: 'a@b.co', password: 'short' }, 'password must be at least 8 characters'],
      ['/auth/signup/', { email: 'a@b.co', password: 12345678 }, 'password must be a string'],
      // Characters as a person counts them: 7 emoji are 7, not 14 (UTF-16 units); 257 are too many.
      ['/auth/signup/', { email: 'a@b.co', password: '🔑'.repeat(7) }, 'password must be at least 8 characters'],
      ['/auth/signup/', { email: 'a@b.co', password: '🔑'.repeat(257) }, 'password must be at most 256 characters'],
      ['/auth/signup/', { email: 'a@b.co', password: 'x'.repeat(250_000) }, 'password must be at most 256 characters'],
      ['/auth/signup/', { email: ['a@b.co'], password: 'long enough' }, 'email must be a string'],
      ['/auth/signup/', { email: 'a@b.co', password: 'long enough', workspace_name: '' }, 'workspace_name must not be empty'],
      ['/auth/signup/', { email: 'a@b.co', password: 'long enough', workspace_name: '\u0007\n' }, 'workspace_name must not be empty'],
      ['/auth/login/', { email: 'a@b.co' }, 'password is required'],
      ['/workspaces/', { name: null }, 'name is required'],
    ];
    const user = await signUp(stack);
    for (const [path, body, error] of cases) {
      const response = await stack.call('POST', path, { body, token: user.token });
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body).toEqual({ error });
    }
  });
});
