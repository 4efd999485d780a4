import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toApiKeyView } from '../../../shared/domain/api-keys/api-key';
import type { ApiKeyService } from '../../../shared/domain/api-keys/api-key-service';
import { requireCaller } from '../../../shared/http/caller';
import { parseBody, pathId } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';
import { CreateApiKeyBody } from './schemas';

const KEY_NOT_FOUND = 'API key not found';

/** Spec: API keys. Callable with a session or with an API key of the same user. */
export function apiKeyRoutes(keys: ApiKeyService) {
  return {
    'GET /api/v1/api-keys': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const list = await keys.list(caller.userId);
      return json(200, { api_keys: list.map((key) => toApiKeyView(key)) });
    },

    'POST /api/v1/api-keys': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const body = parseBody(CreateApiKeyBody, event);
      const issued = await keys.create({ userId: caller.userId, workspaceId: caller.workspaceId, name: body.name });
      return json(201, toApiKeyView(issued.key, issued.fullKey));
    },

    'POST /api/v1/api-keys/{id}/rotate': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      const issued = await keys.rotate(caller.userId, pathId(event, 'id', KEY_NOT_FOUND));
      return json(200, toApiKeyView(issued.key, issued.fullKey));
    },

    'POST /api/v1/api-keys/{id}/revoke': async (event: APIGatewayProxyEvent) => {
      const caller = requireCaller(event);
      await keys.revoke(caller.userId, pathId(event, 'id', KEY_NOT_FOUND));
      return json(200, { success: true });
    },
  };
}
