import { toApiKeyView } from '../../../shared/domain/api-keys/api-key';
import type { ApiKeyService } from '../../../shared/domain/api-keys/api-key-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { apiKeyRoutes } from '../../../shared/http/routes/api-keys';

/** Spec: API keys. Callable with a session or with an API key of the same user. */
export function apiKeyHandlers(keys: ApiKeyService) {
  return {
    listApiKeys: async (request) => {
      const list = await keys.list(request.caller().userId);
      return json(200, { api_keys: list.map((key) => toApiKeyView(key)) });
    },

    createApiKey: async (request) => {
      const caller = request.caller();
      const body = request.body();
      const issued = await keys.create({ userId: caller.userId, workspaceId: caller.workspaceId, name: body.name });
      return json(201, toApiKeyView(issued.key, issued.fullKey));
    },

    rotateApiKey: async (request) => {
      const caller = request.caller();
      const issued = await keys.rotate(caller.userId, request.path().id);
      return json(200, toApiKeyView(issued.key, issued.fullKey));
    },

    revokeApiKey: async (request) => {
      const caller = request.caller();
      await keys.revoke(caller.userId, request.path().id);
      return json(200, { success: true });
    },
  } satisfies HandlersFor<typeof apiKeyRoutes>;
}
