import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SettingsOf, TABLE_SETTINGS } from '../config/settings';
import { makeDocClient } from '../db/client';
import { DynamoIdAllocator } from '../db/id-allocator';
import type { FunctionDeps } from './function-deps';

export interface TableAccess {
  db: DynamoDBDocumentClient;
  tableName: string;
  ids: DynamoIdAllocator;
}

export type TableSettings = SettingsOf<typeof TABLE_SETTINGS>;

/** The document client and id allocator a function builds once per container from its settings. */
export function tableAccess(config: TableSettings, deps: Pick<FunctionDeps, 'onTableClient'> = {}): TableAccess {
  const db = makeDocClient({ endpoint: config.dynamodbEndpoint, region: config.awsRegion, trackCapacity: config.trackCapacity });
  deps.onTableClient?.(db);
  return { db, tableName: config.tableName, ids: new DynamoIdAllocator(db, config.tableName) };
}
