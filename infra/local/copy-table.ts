/**
 * `npm run copy-table -- <from> <to>`: copies every item of one table into another
 * (infra/migrate/copy-table.ts), e.g. a deployed stack's table created with ALL local indexes into
 * the KEYS_ONLY table that replaced it (docs/deploy.md, "Upgrading a table created with ALL local
 * indexes"). Both tables must exist. At DYNAMODB_ENDPOINT if set (a running DynamoDB Local),
 * otherwise in AWS (AWS_REGION, credentials from the usual profile or environment).
 * COPY_SEGMENTS (default 4) sets the parallel Scan segments.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { readSettings } from '../../shared/config/settings';
import { makeDocClient } from '../../shared/db/client';
import { copyTable } from '../migrate/copy-table';

async function main() {
  const [from, to] = process.argv.slice(2);
  if (!from || !to || from === to) {
    console.error('Usage: npm run copy-table -- <from table> <to table>   (two different tables)');
    process.exit(2);
  }
  const segments = Number(process.env.COPY_SEGMENTS ?? 4);
  if (!Number.isInteger(segments) || segments < 1 || segments > 64) {
    console.error(`COPY_SEGMENTS must be an integer from 1 to 64, got ${JSON.stringify(process.env.COPY_SEGMENTS)}`);
    process.exit(2);
  }
  // Parsed through the settings' one declaration, as a Lambda entry parses them.
  const settings = readSettings(['dynamodbEndpoint', 'awsRegion'], process.env);
  const db = makeDocClient({ endpoint: settings.dynamodbEndpoint, region: settings.awsRegion });
  try {
    const where = settings.dynamodbEndpoint ? `at ${settings.dynamodbEndpoint}` : `in AWS (${settings.awsRegion})`;
    for (const table of [from, to]) {
      try {
        await db.send(new DescribeTableCommand({ TableName: table }));
      } catch (error) {
        if ((error as Error).name === 'ResourceNotFoundException') throw new Error(`No table ${table} ${where}: both tables must exist (the stack creates the new one).`);
        throw error;
      }
    }
    console.log(`Copying every item of ${from} into ${to} ${where}, ${segments} segments...`);
    const report = await copyTable(db, from, to, { segments, log: (line) => console.log(`  ${line}`) });
    console.log(`Done: ${report.copied} items copied.`);
  } finally {
    db.destroy();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
