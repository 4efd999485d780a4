import * as v from 'valibot';
import { Id, defineRoute, idParam } from './define';

const ConnectionStatusView = v.strictObject({
  success: v.literal(true),
  is_connected: v.boolean(),
  connection_level: v.nullable(v.picklist([1, 2, 3])),
  network_distance: v.nullable(v.picklist(['FIRST_DEGREE', 'SECOND_DEGREE', 'THIRD_DEGREE', 'OUT_OF_NETWORK'])),
  checked_with_account_id: Id,
});

const ACCOUNT_ID_MESSAGE = 'account_id must be a positive integer';

/** `account_id` absent (or empty) means "the first active network account". */
export const ConnectionStatusQuery = v.object({
  account_id: v.optional(
    v.union([
      v.literal(''),
      v.pipe(v.string(), v.regex(/^[0-9]{1,16}$/, ACCOUNT_ID_MESSAGE), v.transform(Number), v.safeInteger(ACCOUNT_ID_MESSAGE), v.minValue(1, ACCOUNT_ID_MESSAGE)),
    ], ACCOUNT_ID_MESSAGE),
  ),
});

/** The same check under the API-key path and the session (in-app) path. */
const connectionStatusRoute = (path: string, auth: 'apiKey' | 'session') =>
  defineRoute('connections', {
    method: 'GET',
    path,
    auth,
    summary: 'Whether the prospect is a first-degree connection of a network account, asked live of the provider.',
    request: { path: v.object({ prospect_id: idParam('Prospect not found') }), query: ConnectionStatusQuery },
    responses: { 200: ConnectionStatusView },
    errors: [403, 404, 502],
  });

/** Spec: Connection status. */
export const connectionRoutes = {
  connectionStatus: connectionStatusRoute('/public/prospects/{prospect_id}/connection-status', 'apiKey'),
  connectionStatusInApp: connectionStatusRoute('/prospects/{prospect_id}/connection-status', 'session'),
};
