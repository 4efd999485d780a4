import type { ConnectionService } from '../../../shared/domain/connections/connection-service';
import { toConnectionStatusView } from '../../../shared/domain/connections/connection-status';
import type { HandlersFor, RouteRequest } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { connectionRoutes } from '../../../shared/http/routes/connections';

/** Spec: Connection status. The same check under the API-key path and the session (in-app) path. */
export function connectionHandlers(connections: ConnectionService) {
  const check = async (request: RouteRequest<(typeof connectionRoutes)['connectionStatus']>) => {
    const caller = request.caller();
    const prospectId = request.path().prospect_id;
    // The query is read after the prospect's checks (a malformed account_id is the last error).
    const accountId = () => {
      const given = request.query().account_id;
      return given === '' ? undefined : given;
    };
    const status = await connections.check(caller.workspaceId, prospectId, accountId);
    return json(200, toConnectionStatusView(status));
  };
  return { connectionStatus: check, connectionStatusInApp: check } satisfies HandlersFor<typeof connectionRoutes>;
}
