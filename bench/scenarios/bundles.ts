import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { FUNCTION_BUNDLE } from '../../infra/bundling';
import { bundleProviderSdk } from '../../infra/constructs/provider-sdk-layer';
import { REPO_ROOT } from '../../infra/local/local-stack';
import { type AllSettings, SETTINGS, type SettingName, toEnvironment } from '../../shared/config/settings';
import { AUTHORIZER, FUNCTION_GROUPS } from '../../shared/http/route-table';
import { QUEUES, SCHEDULES } from '../../shared/runtime/catalog';
import { type BenchScenario, fmt, median, table } from '../lib';

const IMPORT_RUNS = 9;

/**
 * The environment of a deployed function: every setting the local stack's functions got, written
 * as the CDK stack writes them, with the local-only ones left out, so each entry's settings
 * parsing and builder run at import as they would in AWS.
 */
function deployedEnv(settings: Partial<AllSettings>): NodeJS.ProcessEnv {
  const { dynamodbEndpoint: _db, sqsEndpoint: _sqs, trackCapacity: _track, webhookAllowLoopback: _loopback, ...deployed } = settings;
  return {
    ...process.env,
    ...toEnvironment(Object.keys(SETTINGS) as SettingName[], { ...deployed, runtime: 'aws', usagePlanId: 'plan' }),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** Every Lambda entry point, bundled as the CDK stack bundles it. */
export function lambdaEntries(): { name: string; entry: string }[] {
  return [
    ...Object.entries(FUNCTION_GROUPS).map(([name, group]) => ({ name, entry: group.entry })),
    { name: 'authorizer', entry: AUTHORIZER.entry },
    ...QUEUES.map((queue) => ({ name: `queue-${queue.name}`, entry: queue.consumerEntry })),
    ...SCHEDULES.map((job) => ({ name: `schedule-${job.name}`, entry: job.entry })),
  ];
}

/**
 * Bundle size (minified CommonJS, AWS SDK external as on nodejs22.x) and cold import time: a fresh
 * Node process imports the bundle, which runs its module scope (env parsing, client creation)
 * as a Lambda init would. The AWS SDK is loaded from node_modules, as the runtime provides it.
 */
export const scenario: BenchScenario = {
  name: 'bundles',
  async run({ stack }) {
    const outDir = join(REPO_ROOT, '.bench-tmp');
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const rows: (string | number)[][] = [];
    for (const { name, entry } of lambdaEntries()) {
      const outfile = join(outDir, `${name}.cjs`);
      await build({
        entryPoints: [resolve(REPO_ROOT, entry)],
        outfile,
        ...FUNCTION_BUNDLE,
        logLevel: 'silent',
      });
      const sizeKb = statSync(outfile).size / 1024;
      const times: number[] = [];
      for (let i = 0; i < IMPORT_RUNS; i += 1) {
        try {
          const output = execFileSync(
            process.execPath,
            ['-e', `const t = performance.now(); require(${JSON.stringify(outfile)}); console.log(performance.now() - t);`],
            { env: deployedEnv(stack.settings), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
          );
          times.push(Number(output.trim().split('\n').pop()));
        } catch (error) {
          const stderr = String((error as { stderr?: string }).stderr ?? error);
          const reason = stderr.split('\n').find((line) => /Error/.test(line)) ?? stderr.slice(0, 200);
          throw new Error(`${name}: importing the bundle failed: ${reason}`);
        }
      }
      const importMs = median(times);
      rows.push([name, entry, fmt(sizeKb, 1), sizeKb < 500 ? 'yes' : 'NO', fmt(importMs, 1), importMs < 150 ? 'yes' : 'NO']);
    }
    // The floor every table-backed function shares: requiring the DynamoDB clients from the SDK.
    const floor = median(
      Array.from({ length: IMPORT_RUNS }, () =>
        Number(
          execFileSync(
            process.execPath,
            ['-e', "const t = performance.now(); require('@aws-sdk/client-dynamodb'); require('@aws-sdk/lib-dynamodb'); console.log(performance.now() - t);"],
            { env: deployedEnv(stack.settings), encoding: 'utf8', cwd: REPO_ROOT },
          ).trim(),
        ),
      ),
    );
    rows.push(['(baseline: AWS SDK DynamoDB clients alone)', '@aws-sdk/client-dynamodb + lib-dynamodb', '-', '-', fmt(floor, 1), '-']);
    // The provider SDK's layer, built as the stack builds it: required at a function's first
    // provider call, not at its cold start, so its time is not held against the 150 ms.
    const layerModule = bundleProviderSdk(join(outDir, 'provider-sdk-layer'));
    const layerKb = statSync(layerModule).size / 1024;
    const layerMs = median(
      Array.from({ length: IMPORT_RUNS }, () =>
        Number(
          execFileSync(process.execPath, ['-e', `const t = performance.now(); require(${JSON.stringify(layerModule)}); console.log(performance.now() - t);`], {
            encoding: 'utf8',
          }).trim(),
        ),
      ),
    );
    rmSync(outDir, { recursive: true, force: true });
    return {
      title: 'Lambda bundles',
      markdown: [
        `Each entry bundled with esbuild exactly as the CDK stack does (minified CommonJS, \`@aws-sdk/*\` external, so the SDK loads from its single-file CommonJS build, and the provider SDK external, in its layer); import time is the median of ${IMPORT_RUNS} fresh Node processes. Targets: under 500 KB and under 150 ms. The last row is the floor that loading the SDK's DynamoDB clients alone costs on this machine in the same run: import times here move by ±30% with machine load, so read each row against it.`,
        '',
        table(['function', 'entry', 'size KB', '< 500 KB', 'cold import ms', '< 150 ms'], rows),
        '',
        `The provider SDK's layer (\`infra/constructs/provider-sdk-layer.ts\`, given to every function): ${fmt(layerKb, 1)} KB minified; requiring it takes ${fmt(layerMs, 1)} ms (median of ${IMPORT_RUNS}), paid at an execution environment's first provider call (the adapter imports it then), not at its cold start.`,
      ].join('\n'),
    };
  },
};
