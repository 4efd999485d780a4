/**
 * `npm start`: the whole service on this machine. DynamoDB Local keeps its data under .data/,
 * the SQS emulator runs in-process, and the local gateway serves the API on PORT (default 3000).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSettings } from '../../shared/config/settings';
import { OffsetClock } from '../../shared/time/clock';
import { DynamoCreditRepository } from '../../shared/db/credit-repository';
import { DynamoIdAllocator } from '../../shared/db/id-allocator';
import { DEV_WORKSPACE_CREDITS, createCreditService } from '../../shared/domain/credits/credits';
import { JavaMissingError, assertJavaAvailable } from './dynamodb-local';
import { ensureDevCredentials } from './dev-credentials';
import { ensureDevSenderAccounts } from './dev-sender-accounts';
import { REPO_ROOT, startLocalStack } from './local-stack';

/** Where local data lives: `.data/` in the repo unless DATA_DIR says otherwise. */
const dataDir = resolve(process.env.DATA_DIR ?? join(REPO_ROOT, '.data'));

/**
 * A random secret kept in a file under the data directory, so it survives restarts: the session
 * signing secret (saved session tokens stay valid), the key sealing webhook signing secrets
 * (stored webhooks keep working) and the unsubscribe links' key (links in sent emails keep working).
 */
function persistentSecret(name: string): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * `npm start`'s clock, resuming where the last run left it: its offset ahead of the machine's
 * time is kept in `local-clock.json` at each move, so a restart never shows an earlier time than
 * the last run did (the data and the scheduler's marks are dated by it).
 */
function persistentClock(): OffsetClock {
  const file = join(dataDir, 'local-clock.json');
  let offsetMs = 0;
  if (existsSync(file)) {
    try {
      const kept = Number((JSON.parse(readFileSync(file, 'utf8')) as { offset_ms?: unknown }).offset_ms);
      if (Number.isFinite(kept) && kept > 0) offsetMs = kept;
    } catch {
      // An unreadable file (edited by hand, say): the machine's time, as on a first start.
    }
  }
  return new OffsetClock(undefined, { offsetMs, onMove: (offset) => writeFileSync(file, `${JSON.stringify({ offset_ms: offset })}\n`) });
}

async function main() {
  try {
    assertJavaAvailable();
  } catch (error) {
    if (error instanceof JavaMissingError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const port = Number(process.env.PORT ?? 3000);
  const clock = persistentClock();
  const stack = await startLocalStack({
    port,
    dynamodbPath: join(dataDir, 'dynamodb'),
    ...(process.env.DYNAMODB_PORT ? { dynamodbPort: Number(process.env.DYNAMODB_PORT) } : {}),
    sessionSecret: persistentSecret('session-secret'),
    webhookSecretKey: persistentSecret('webhook-secret-key'),
    unsubscribeSecret: persistentSecret('unsubscribe-secret'),
    // Accounts connected through the sandbox (hosted links, its control API) are found again after a restart.
    sandboxAccountsFile: join(dataDir, 'sandbox-accounts.json'),
    // Parsed through the settings' one declaration, as a Lambda entry parses its settings.
    ...readSettings(['rateLimitPerMinute', 'rateLimitBurst'], process.env),
    // The documented limits (docs/lead-lists.md) a developer may set for `npm start` too: SEARCH_QUOTA_PER_MONTH, MAX_LEADS_PER_LIST;
    // and WEBHOOK_RETRY_SCHEDULE, so that a webhook's retries and redelivery can be tried in minutes (docs/integrations.md).
    settings: readSettings(['searchQuotaPerMonth', 'maxLeadsPerList', 'webhookRetrySchedule'], process.env),
    // The machine's time, movable forward through POST /_local/clock, kept across restarts.
    clock,
    log: (line) => console.error(line),
    functionLog: (line) => console.error(line),
  });
  const credentialsFile = join(dataDir, 'dev-credentials.json');
  const credentials = await ensureDevCredentials(stack.baseUrl, credentialsFile, stack.provider.url, stack.enrichment.url);
  const senderAccounts = await ensureDevSenderAccounts(stack.baseUrl, credentials.api_key);
  // The development workspace starts with DEV_WORKSPACE_CREDITS credits, granted once (docs/enrichment.md).
  await createCreditService({ credits: new DynamoCreditRepository(stack.db, stack.tableName), ids: new DynamoIdAllocator(stack.db, stack.tableName), clock: stack.clock }).grant(
    credentials.workspace_id,
    DEV_WORKSPACE_CREDITS,
    'Development workspace credits',
    'dev-welcome',
  );

  console.log(`Outreach API listening on ${stack.baseUrl}/api/v1/ (sandbox mode: local DynamoDB and SQS emulators)`);
  console.log(`DynamoDB Local at ${stack.dynamodbEndpoint}, data in ${join(dataDir, 'dynamodb')}; SQS emulator at ${stack.sqsEndpoint}`);
  console.log(`Development credentials in ${credentialsFile} (workspace ${credentials.workspace_id}, ${credentials.email})`);
  console.log(`Try: curl -H "X-API-Key: ${credentials.api_key}" ${stack.baseUrl}/api/v1/api-keys/`);
  console.log(`Sandbox provider at ${stack.provider.url} (control API under /_sandbox/); sender accounts: ${senderAccounts.map((a) => `${a.type} #${a.id} (${a.status})`).join(', ')}`);
  console.log(`Sandbox enrichment providers at ${stack.enrichment.url} (control API under /_sandbox/enrichment/; docs/enrichment.md)`);
  console.log(`Local clock: GET ${stack.baseUrl}/_local/clock; move it forward with POST {"advance_hours": 24} or {"now": "<ISO time>"}`);
  if (clock.offsetMs > 0) console.log(`Local clock resumed at ${clock.now().toISOString()}, ${(clock.offsetMs / 3_600_000).toFixed(1)} hours ahead of this machine's time (kept in ${join(dataDir, 'local-clock.json')})`);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping...');
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error) => {
  if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    console.error(`Port ${process.env.PORT ?? 3000} is already in use: stop what listens there, or start on another one (PORT=3001 npm start).`);
  } else {
    console.error(error instanceof Error ? error.message : String(error));
  }
  process.exit(1);
});
