import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDocClient } from '../db/client';
import { DynamoIdAllocator } from '../db/id-allocator';

export interface TableAccess {
  db: DynamoDBDocumentClient;
  tableName: string;
  ids: DynamoIdAllocator;
}

/** The document client and id allocator a function builds once per container from its env. */
export function tableAccess(env: { TABLE_NAME: string; DYNAMODB_ENDPOINT?: string | undefined }): TableAccess {
  const db = makeDocClient({ endpoint: env.DYNAMODB_ENDPOINT, trackCapacity: process.env.DYNAMODB_TRACK_CAPACITY === '1' });
  return { db, tableName: env.TABLE_NAME, ids: new DynamoIdAllocator(db, env.TABLE_NAME) };
}
