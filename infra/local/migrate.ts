/**
 * `npm run migrate`: brings a table written before the member digest to the current lead-list
 * layout (infra/migrate/lead-list-layout.ts; docs/data-model.md). Safe to run again.
 *
 * - Without TABLE_NAME: the table `npm start` keeps in `.data/` (or DATA_DIR). DynamoDB Local is
 *   started here on that data (on DYNAMODB_PORT if set), so `npm start` must be stopped.
 * - With TABLE_NAME: that table, at DYNAMODB_ENDPOINT if set, otherwise in AWS (AWS_REGION,
 *   credentials from the usual AWS profile or environment), e.g. a deployed stack's `TableName`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { readSettings } from '../../shared/config/settings';
import { makeDocClient } from '../../shared/db/client';
import { systemClock } from '../../shared/time/clock';
import { migrateLeadListLayout } from '../migrate/lead-list-layout';
import { REPO_ROOT } from '../paths';
import { JavaMissingError, type RunningDynamoDb, startDynamoDbLocal } from './dynamodb-local';
import { LOCAL_TABLE_NAME } from './table';

async function tableExists(db: ReturnType<typeof makeDocClient>, tableName: string): Promise<boolean> {
  try {
    await db.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
}

async function main() {
  let local: RunningDynamoDb | undefined;
  let target: { tableName: string; endpoint: string | undefined; region: string };
  if (process.env.TABLE_NAME) {
    // Parsed through the settings' one declaration, as a Lambda entry parses them.
    const settings = readSettings(['tableName', 'dynamodbEndpoint', 'awsRegion'], process.env);
    target = { tableName: settings.tableName, endpoint: settings.dynamodbEndpoint, region: settings.awsRegion };
  } else {
    const dbPath = join(resolve(process.env.DATA_DIR ?? join(REPO_ROOT, '.data')), 'dynamodb');
    if (!existsSync(dbPath)) {
      console.log(`No local data in ${dbPath}: nothing to migrate.`);
      return;
    }
    local = await startDynamoDbLocal({ dbPath, ...(process.env.DYNAMODB_PORT ? { port: Number(process.env.DYNAMODB_PORT) } : {}) });
    target = { tableName: LOCAL_TABLE_NAME, endpoint: local.endpoint, region: 'us-east-1' };
    console.log(`DynamoDB Local on ${dbPath} (stop npm start before running this)`);
  }
  const db = makeDocClient({ endpoint: target.endpoint, region: target.region });
  try {
    const where = `table ${target.tableName} ${target.endpoint ? `at ${target.endpoint}` : `in AWS (${target.region})`}`;
    if (!(await tableExists(db, target.tableName))) {
      console.log(`No ${where}: nothing to migrate.`);
      return;
    }
    console.log(`Migrating ${where} to the member-digest layout...`);
    const report = await migrateLeadListLayout(db, target.tableName, { clock: systemClock, log: (line) => console.log(`  ${line}`) });
    console.log(
      `Lists: ${report.lists} (${report.listsChanged} changed: ${report.membersWritten} member items written, ${report.membersDeleted} deleted, ` +
        `${report.membersUnchanged} unchanged; ${report.digestsRebuilt} digests rebuilt; ${report.countersSet} lists' counters set). ` +
        `Workspaces with leads: ${report.workspaces} (${report.leadCountsWritten} LEADCOUNTS written). Open batches settled: ${report.journalsSettled}.`,
    );
    const changes = report.listsChanged + report.leadCountsWritten + report.journalsSettled;
    console.log(changes === 0 ? 'Nothing to change: the table already has the current layout.' : 'Done.');
  } finally {
    db.destroy();
    await local?.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof JavaMissingError ? error.message : error instanceof Error ? error.message : String(error));
  process.exit(1);
});
