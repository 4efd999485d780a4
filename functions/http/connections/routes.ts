import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ConnectionService } from '../../../shared/domain/connections/connection-service';
import { toConnectionStatusView } from '../../../shared/domain/connections/connection-status';
import { validationError } from '../../../shared/domain/errors';
import { requireCaller } from '../../../shared/http/caller';
import { pathId } from '../../../shared/http/request';
import { json } from '../../../shared/http/responses';

const PROSPECT_NOT_FOUND = 'Prospect not found';

/** `account_id` from the query: absent means "the first active network account". */
function accountIdParam(event: APIGatewayProxyEvent): number | undefined {
  const raw = event.queryStringParameters?.account_id;
  if (raw === undefined || raw === '') return undefined;
  const id = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw validationError('account_id must be a positive integer');
  return id;
}

/** Spec: Connection status. The same check under the API-key path and the session (in-app) path. */
export function connectionRoutes(connections: ConnectionService) {
  const check = async (event: APIGatewayProxyEvent) => {
    const caller = requireCaller(event);
    const prospectId = pathId(event, 'prospect_id', PROSPECT_NOT_FOUND);
    const status = await connections.check(caller.workspaceId, prospectId, accountIdParam(event));
    return json(200, toConnectionStatusView(status));
  };
  return {
    'GET /api/v1/public/prospects/{prospect_id}/connection-status': check,
    'GET /api/v1/prospects/{prospect_id}/connection-status': check,
  };
}
