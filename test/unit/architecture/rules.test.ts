import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/paths';

/** Every TypeScript file under the given folders, relative to the repo root. */
function sources(...folders: string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) found.push(relative(REPO_ROOT, path));
    }
  };
  for (const folder of folders) walk(join(REPO_ROOT, folder));
  return found.sort();
}

/** Lines of runtime code that match, as `file:line: text`, comments left out. */
function offending(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(join(REPO_ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
  );
}

/** The Lambda entries: the only code that may read the environment or build the system clock. */
const isLambdaEntry = (file: string) => /^functions\/.+\/lambda\.ts$/.test(file);

describe('project rules', () => {
  const runtime = sources('shared', 'functions', 'infra');

  it('reads the time only through the injected clock', () => {
    const clockModule = 'shared/time/clock.ts';
    expect(offending(runtime.filter((file) => file !== clockModule), /new Date\(\)|Date\.now\(\)/)).toEqual([]);
  });

  it('reads process.env only in the Lambda entries and the entries of the local runtime, the migration command and the CDK app', () => {
    // infra/local/migrate.ts (`npm run migrate`), infra/local/credits.ts (`npm run credits`) and infra/local/copy-table.ts
    // (`npm run copy-table`) are commands like `npm start`: they read where the table is.
    const entries = new Set(['infra/local/start.ts', 'infra/local/migrate.ts', 'infra/local/credits.ts', 'infra/local/copy-table.ts', 'infra/app.ts']);
    expect(offending(runtime.filter((file) => !isLambdaEntry(file) && !entries.has(file)), /process\.env/)).toEqual([]);
  });

  it('never writes process.env', () => {
    expect(offending(runtime, /process\.env(\.\w+|\[[^\]]+\])\s*(\?\?|\|\||&&)?=[^=]|Object\.assign\(process\.env/)).toEqual([]);
  });

  it('keeps every Lambda entry thin: its builder, its declared settings from the environment, the system clock', () => {
    const entries = runtime.filter(isLambdaEntry);
    expect(entries).toHaveLength(25);
    for (const entry of entries) {
      const code = readFileSync(join(REPO_ROOT, entry), 'utf8');
      // lambdaEntry reads secret settings from Secrets Manager at runtime (shared/runtime/lambda-entry.ts).
      expect(code, entry).toMatch(/export const handler = lambdaEntry\(build\w+, [\w.]+\.settings, process\.env, \{ clock: systemClock \}\);/);
    }
  });

  it('serves requests from keys and indexes: no Scan in runtime code', () => {
    // The one exception: the operator's migration command (`npm run migrate`), which reads a whole table once, offline.
    const migration = (file: string) => file.startsWith('infra/migrate/');
    expect(offending(runtime.filter((file) => !migration(file)), /ScanCommand|\.scan\(/)).toEqual([]);
  });
});
