/**
 * `npm run credits -- grant <workspace_id> <amount> [reason]`: an operator's grant of credits,
 * with its ledger entry, in one transaction (docs/enrichment.md).
 * - By default against the local runtime's data (.data/dynamodb, DATA_DIR to change it): DynamoDB
 *   Local is started on it here, so stop `npm start` first.
 * - With TABLE_NAME (and AWS credentials in the environment, AWS_REGION) against that table in
 *   AWS; with DYNAMODB_ENDPOINT too, against a running DynamoDB Local.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSettings } from '../../shared/config/settings';
import { makeDocClient } from '../../shared/db/client';
import { DynamoCreditRepository } from '../../shared/db/credit-repository';
import { DynamoIdAllocator } from '../../shared/db/id-allocator';
import { workspaceKey } from '../../shared/db/keys';
import { createCreditService } from '../../shared/domain/credits/credits';
import { systemClock } from '../../shared/time/clock';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local';
import { REPO_ROOT } from './local-stack';
import { LOCAL_TABLE_NAME } from './table';

async function main() {
  const [command, workspaceText, amountText, ...reasonWords] = process.argv.slice(2);
  if (command !== 'grant' || !workspaceText || !amountText) {
    console.error('Usage: npm run credits -- grant <workspace_id> <amount> [reason]');
    process.exit(2);
  }
  const workspaceId = Number(workspaceText);
  const amount = Number(amountText);
  let local: RunningDynamoDb | undefined;
  let target: { tableName: string; endpoint: string | undefined; region: string };
  if (process.env.TABLE_NAME) {
    const settings = readSettings(['tableName', 'dynamodbEndpoint', 'awsRegion'], process.env);
    target = { tableName: settings.tableName, endpoint: settings.dynamodbEndpoint, region: settings.awsRegion };
  } else {
    const dbPath = join(resolve(process.env.DATA_DIR ?? join(REPO_ROOT, '.data')), 'dynamodb');
    if (!existsSync(dbPath)) throw new Error(`No local data in ${dbPath}: run npm start once first`);
    local = await startDynamoDbLocal({ dbPath, ...(process.env.DYNAMODB_PORT ? { port: Number(process.env.DYNAMODB_PORT) } : {}) });
    target = { tableName: LOCAL_TABLE_NAME, endpoint: local.endpoint, region: 'us-east-1' };
  }
  const db = makeDocClient({ endpoint: target.endpoint, region: target.region });
  try {
    const { Item } = await db.send(new GetCommand({ TableName: target.tableName, Key: workspaceKey(workspaceId), ConsistentRead: true }));
    if (!Item) throw new Error(`No workspace ${workspaceText} in table ${target.tableName}`);
    const service = createCreditService({ credits: new DynamoCreditRepository(db, target.tableName), ids: new DynamoIdAllocator(db, target.tableName), clock: systemClock });
    await service.grant(workspaceId, amount, reasonWords.join(' ') || 'Operator grant');
    const balance = await new DynamoCreditRepository(db, target.tableName).balance(workspaceId);
    console.log(`Granted ${amount} credits to workspace ${workspaceId}; balance ${balance}.`);
  } finally {
    db.destroy();
    await local?.stop();
  }
}

main().catch((error) => {
  console.error(String(error instanceof Error ? error.message : error));
  process.exit(1);
});
