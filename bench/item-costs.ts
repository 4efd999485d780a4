import { BatchGetCommand, BatchWriteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local';
import { ensureTable } from '../infra/local/table';
import { makeDocClient } from '../shared/db/client';

/**
 * What DynamoDB Local takes per item for each kind of call, on this machine: the figures the
 * scenarios' "where its time goes" sections reason with. Items of ~700 bytes (25 attributes), four
 * calls in flight at once unless told otherwise, three rounds (the first warms the JVM).
 *
 *   AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true npx tsx bench/item-costs.ts [calls in flight, 4]
 */
const ITEMS = 4000;
const IN_FLIGHT = Number(process.argv[2] ?? 4);
const TABLE = 'item-costs';

async function main(): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const db = makeDocClient({ endpoint: dynamo.endpoint });
  await ensureTable(db, TABLE);
  const attributes = Object.fromEntries(Array.from({ length: 25 }, (_, k) => [`a${k}`, 'v'.repeat(25)]));
  const item = (pk: string) => ({ pk, sk: 'ITEM', ...attributes });
  for (let i = 0; i < ITEMS; i += 25) {
    await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: Array.from({ length: 25 }, (_, k) => ({ PutRequest: { Item: item(`READ#${i + k}`) } })) } }));
  }

  async function time(label: string, perCall: number, call: (index: number) => Promise<unknown>): Promise<void> {
    const calls = ITEMS / perCall;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < calls) await call(next++);
      }),
    );
    console.log(`${label.padEnd(44)} ${((performance.now() - started) / ITEMS).toFixed(3)} ms an item`);
  }
  const keys = (prefix: string, call: number, size: number) => Array.from({ length: size }, (_, k) => ({ pk: `${prefix}#${call * size + k}`, sk: 'ITEM' }));

  for (let round = 1; round <= 3; round += 1) {
    console.log(`round ${round}`);
    await time('BatchGetItem of 100 items', 100, (c) => db.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys('READ', c, 100), ConsistentRead: true } } })));
    await time('BatchGetItem of 100 absent keys', 100, (c) => db.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: keys(`ABSENT${round}`, c, 100), ConsistentRead: true } } })));
    await time('BatchWriteItem of 25 puts', 25, (c) =>
      db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: keys(`BATCH${round}`, c, 25).map((key) => ({ PutRequest: { Item: item(key.pk) } })) } })),
    );
    await time('PutItem with a condition', 1, (c) => db.send(new PutCommand({ TableName: TABLE, Item: item(`PUT${round}#${c}`), ConditionExpression: 'attribute_not_exists(pk)' })));
    for (const size of [2, 10, 50, 100]) {
      await time(`TransactWriteItems of ${size} conditional puts`, size, (c) =>
        db.send(
          new TransactWriteCommand({
            TransactItems: keys(`TX${round}x${size}`, c, size).map((key) => ({ Put: { TableName: TABLE, Item: item(key.pk), ConditionExpression: 'attribute_not_exists(pk)' } })),
          }),
        ),
      );
    }
  }
  await dynamo.stop();
}

void main();
