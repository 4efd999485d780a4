import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type LogFormat, type Logger, createLogger } from '../logging/logger';
import type { Clock } from '../time/clock';

/**
 * What every function builder takes besides its settings: the clock (the only source of time) and
 * how to log. A Lambda entry passes the system clock and JSON logs; the local runtime passes its
 * movable clock, readable lines and response checking.
 */
export interface FunctionDeps {
  clock: Clock;
  logging?: { format?: LogFormat; sink?: (line: string) => void };
  /** Check every HTTP response against its route's schemas (the test stacks turn it on). */
  checkResponses?: boolean;
  /**
   * Called with the function's table client once it is made: the local runtime installs the check
   * of the function's IAM table grant there (infra/local/table-grant-check.ts), so a call the
   * deployed role would refuse fails locally too.
   */
  onTableClient?: (db: DynamoDBDocumentClient) => void;
}

/** The function's logger, named after it. */
export const loggerFor = (service: string, deps: FunctionDeps): Logger => createLogger({ service, ...deps.logging });
