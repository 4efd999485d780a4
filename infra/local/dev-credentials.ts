import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface DevCredentials {
  base_url: string;
  app_url: string;
  api_key: string;
  session_token: string;
  workspace_id: number;
  email: string;
  password: string;
  /** The sandbox provider's base URL; its control API is under `/_sandbox/` (docs/integrations.md). */
  sandbox_provider_url: string;
  /** The sandbox enrichment providers' base URL; their control API is under `/_sandbox/enrichment/` (docs/enrichment.md). */
  sandbox_enrichment_url: string;
}

async function call(baseUrl: string, method: string, path: string, options: { body?: unknown; apiKey?: string; token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}

/**
 * Makes sure the development user, workspace and API key exist and that the file describes
 * them (with this start's sandbox provider and sandbox enrichment URLs). Everything goes through the API itself. A later start reuses the file; whatever no
 * longer works (an expired session, a wiped database, a revoked key) is replaced.
 */
export async function ensureDevCredentials(baseUrl: string, file: string, sandboxProviderUrl: string, sandboxEnrichmentUrl: string): Promise<DevCredentials> {
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevCredentials) : undefined;
  let email = saved?.email ?? 'dev@example.com';
  let password = saved?.password ?? randomBytes(12).toString('base64url');

  let login = await call(baseUrl, 'POST', '/auth/login', { body: { email, password } });
  if (login.status === 401) {
    login = await call(baseUrl, 'POST', '/auth/signup', { body: { email, password, workspace_name: 'Development' } });
    if (login.status === 409) {
      // The account exists but its password is lost with the file: start a fresh one.
      email = `dev+${randomBytes(4).toString('hex')}@example.com`;
      password = randomBytes(12).toString('base64url');
      login = await call(baseUrl, 'POST', '/auth/signup', { body: { email, password, workspace_name: 'Development' } });
    }
  }
  if (login.status !== 200 && login.status !== 201) {
    throw new Error(`Could not sign in the development user: HTTP ${login.status} ${JSON.stringify(login.body)}`);
  }
  const token = String(login.body.token);
  const workspaceId = Number(login.body.workspace_id);

  let apiKey = saved?.api_key;
  if (!apiKey || (await call(baseUrl, 'GET', '/auth/me', { apiKey })).status !== 200) {
    const created = await call(baseUrl, 'POST', '/api-keys', { token, body: { name: 'Development key' } });
    if (created.status !== 201) throw new Error(`Could not create the development API key: HTTP ${created.status}`);
    apiKey = String(created.body.key);
  }

  const credentials: DevCredentials = {
    base_url: baseUrl,
    app_url: baseUrl,
    api_key: apiKey,
    session_token: token,
    workspace_id: workspaceId,
    email,
    password,
    sandbox_provider_url: sandboxProviderUrl,
    sandbox_enrichment_url: sandboxEnrichmentUrl,
  };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}
