/**
 * `npm run bench [scenario ...]`: starts the local stack (in-memory DynamoDB Local with consumed
 * capacity tracking, the SQS emulator, the local gateway), signs up a bench user, runs every
 * scenario in bench/scenarios/ (or the named ones) and writes a markdown report to
 * bench/results/<timestamp>.md and bench/results/latest.md. The scenarios share the stack, except
 * one that asks for a stack of its own (`stack` options, bench/lib.ts: the engine's ManualClock).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, startLocalStack } from '../infra/local/local-stack';
import { capacityMeter } from '../shared/db/capacity-meter';
import type { BenchContext, BenchScenario, BenchSection } from './lib';

/** A local stack with capacity tracking and a signed-up bench user; `extra` adds to the usual options. */
async function startContext(extra: ReturnType<NonNullable<BenchScenario['stack']>>): Promise<BenchContext> {
  const stack = await startLocalStack({
    trackCapacity: true,
    // The benchmark measures the service, not the per-key limit.
    rateLimitPerMinute: 1_000_000_000,
    rateLimitBurst: 1_000_000_000,
    sessionRateLimitPerMinute: 1_000_000_000,
    sessionRateLimitBurst: 1_000_000_000,
    log: (line) => console.error(line),
    ...extra,
  });
  const call: BenchContext['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(`${stack.baseUrl}/api/v1${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  };

  const signup = await call('POST', '/auth/signup', { body: { email: 'bench@example.com', password: 'benchmark password' } });
  const key = await call('POST', '/api-keys', { token: signup.body.token, body: { name: 'bench' } });
  return {
    stack,
    meter: capacityMeter,
    call,
    user: { token: signup.body.token, apiKey: key.body.key, userId: signup.body.user.id, workspaceId: signup.body.workspace_id },
  };
}

async function main() {
  const wanted = process.argv.slice(2);
  const scenarioDir = join(REPO_ROOT, 'bench', 'scenarios');
  const files = readdirSync(scenarioDir)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => wanted.length === 0 || wanted.includes(basename(file, '.ts')))
    .sort();
  if (files.length === 0) throw new Error(`No scenario matches ${wanted.join(', ')}`);

  const sections: BenchSection[] = [];
  // The scenarios share one stack, started when the first needs it; one that asks for options runs on its own.
  let shared: BenchContext | undefined;
  try {
    for (const file of files) {
      const { scenario } = (await import(pathToFileURL(join(scenarioDir, file)).href)) as { scenario: BenchScenario };
      console.error(`running ${scenario.name}...`);
      if (scenario.stack) {
        const own = await startContext(scenario.stack());
        try {
          sections.push(await scenario.run(own));
        } finally {
          await own.stack.stop();
        }
      } else {
        shared ??= await startContext({});
        sections.push(await scenario.run(shared));
      }
    }
  } finally {
    await shared?.stack.stop();
  }

  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const report = [
    `# Benchmark ${new Date().toISOString()}`,
    '',
    `Machine: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. ` +
      'Local stack: DynamoDB Local (in memory) and the local gateway in this process; load from the same process. ' +
      'DynamoDB Local reports consumed capacity as DynamoDB would bill it.',
    '',
    ...sections.flatMap((section) => [`## ${section.title}`, '', section.markdown, '']),
  ].join('\n');
  const resultsDir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${stamp}.md`), report);
  writeFileSync(join(resultsDir, 'latest.md'), report);
  console.log(report);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
