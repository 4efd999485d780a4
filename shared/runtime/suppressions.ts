import { DynamoSuppressionRepository } from '../db/suppression-repository';
import type { UnsubscribeLinks } from '../domain/suppressions/ports';
import { createSuppressions } from '../domain/suppressions/suppression-service';
import { unsubscribeRoutes } from '../http/routes/unsubscribe';
import { createUnsubscribeTokens } from '../security/unsubscribe-token';
import type { Clock } from '../time/clock';
import type { TableAccess } from './table';

/** The suppression lists (shared/domain/suppressions/) over the table, as every function that reads or adds to them builds them. */
export const suppressionsFrom = ({ db, tableName, ids }: TableAccess, clock: Clock) =>
  createSuppressions({ store: new DynamoSuppressionRepository(db, tableName), ids, clock });

/**
 * Unsubscribe URLs: the API's public base URL and the unsubscribe route's path with a signed token.
 * The outreach consumer cannot send an email with `add_unsubscribe` without them, so a missing base
 * URL fails its cold start rather than sending emails without a working link.
 */
export function unsubscribeLinksFrom(config: { publicApiUrl: string | undefined; unsubscribeSecret: string }): UnsubscribeLinks {
  if (!config.publicApiUrl) throw new Error('Invalid environment: PUBLIC_API_URL is required (unsubscribe links)');
  const base = config.publicApiUrl.replace(/\/+$/, '');
  const tokens = createUnsubscribeTokens(config.unsubscribeSecret);
  return { urlFor: (subject) => `${base}${unsubscribeRoutes.unsubscribePage.path.replace('{token}', tokens.sign(subject))}` };
}
