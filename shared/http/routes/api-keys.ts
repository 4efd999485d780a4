import * as v from 'valibot';
import { typedName } from '../../domain/validation';
import { MAX_API_KEY_NAME_LENGTH } from '../../domain/api-keys/api-key';
import { Id, Success, Timestamp, defineRoute, idParam } from './define';

const KEY_NOT_FOUND = 'API key not found';

export const CreateApiKeyBody = v.object({
  name: typedName(MAX_API_KEY_NAME_LENGTH, { empty: 'name is required', tooLong: `name must be at most ${MAX_API_KEY_NAME_LENGTH} characters` }),
});

/** Spec: API key resource. `key` (the full key) only on create and rotate. */
const ApiKeyView = v.strictObject({
  id: Id,
  name: v.string(),
  prefix: v.pipe(v.string(), v.regex(/^[0-9a-f]{12}$/)),
  is_active: v.boolean(),
  last_used: v.nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const IssuedApiKeyView = v.strictObject({ ...ApiKeyView.entries, key: v.string() });

const keyPath = v.object({ id: idParam(KEY_NOT_FOUND) });

/** Spec: API keys. Callable with a session or with an API key of the same user. */
export const apiKeyRoutes = {
  listApiKeys: defineRoute('apiKeys', {
    method: 'GET',
    path: '/api-keys',
    auth: 'apiKeyOrSession',
    summary: "The caller's API keys, active and revoked.",
    responses: { 200: v.strictObject({ api_keys: v.array(ApiKeyView) }) },
  }),
  createApiKey: defineRoute('apiKeys', {
    method: 'POST',
    path: '/api-keys',
    auth: 'apiKeyOrSession',
    summary: 'Creates a key for the current workspace; the full key is shown once.',
    request: { body: CreateApiKeyBody },
    responses: { 201: IssuedApiKeyView },
    // 403: the caller was removed from the workspace while the request was on its way.
    errors: [403],
  }),
  rotateApiKey: defineRoute('apiKeys', {
    method: 'POST',
    path: '/api-keys/{id}/rotate',
    auth: 'apiKeyOrSession',
    summary: 'Replaces the secret; the old key stops working at once.',
    request: { path: keyPath },
    responses: { 200: IssuedApiKeyView },
    errors: [404, 409],
  }),
  revokeApiKey: defineRoute('apiKeys', {
    method: 'POST',
    path: '/api-keys/{id}/revoke',
    auth: 'apiKeyOrSession',
    summary: 'Revokes the key; it stops working at once.',
    request: { path: keyPath },
    responses: { 200: Success },
    errors: [404],
  }),
};
