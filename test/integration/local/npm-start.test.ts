import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/local/local-stack';
import { aTimestamp, anId } from '../../support/formats';

const TSX = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

interface Started {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
}

/** Every `npm start` this file ran: one a failed assertion left running is stopped after the file (with its DynamoDB Local). */
const children: ChildProcess[] = [];

/** Runs `npm start`'s script as a user would, on a free port with its own data folder. */
function start(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [TSX, 'infra/local/start.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      // Ready once its last start-up line is out (the lines may arrive in separate chunks).
      const match = output.includes('Press Ctrl-C to stop.') ? output.match(/listening on (http:\/\/[^/\s]+)\/api\/v1\//) : null;
      if (match?.[1]) {
        clearInterval(timer);
        resolve({ child, baseUrl: match[1], output: () => output });
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`exited with ${code}: ${output}`));
    });
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'outreach-start-'));
  afterAll(async () => {
    for (const child of children.filter((running) => running.exitCode === null && running.signalCode === null)) {
      child.kill('SIGINT');
      await exitOf(child);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the API with working dev credentials, stops on Ctrl-C, and reuses its data on the next start', async () => {
    const first = await start(dataDir);
    const credentials = JSON.parse(readFileSync(join(dataDir, 'dev-credentials.json'), 'utf8'));
    expect(Object.keys(credentials).sort()).toEqual(
      ['api_key', 'app_url', 'base_url', 'email', 'password', 'sandbox_enrichment_url', 'sandbox_provider_url', 'session_token', 'workspace_id'].sort(),
    );
    expect(credentials.base_url).toBe(first.baseUrl);
    expect(credentials.app_url).toBe(first.baseUrl);
    expect(credentials.api_key).toMatch(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/);
    expect(Number.isSafeInteger(credentials.workspace_id)).toBe(true);
    expect(credentials).toEqual({
      base_url: first.baseUrl,
      app_url: first.baseUrl,
      api_key: expect.stringMatching(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/),
      session_token: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
      workspace_id: anId(),
      // A fresh data folder: the default development user, with a generated password (12 random bytes).
      email: 'dev@example.com',
      password: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      sandbox_provider_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:[0-9]+$/),
      sandbox_enrichment_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:[0-9]+$/),
    });
    expect(first.output()).toContain(`Sandbox provider at ${credentials.sandbox_provider_url} (control API under /_sandbox/)`);

    const health = await fetch(`${first.baseUrl}/api/v1/health/`);
    expect(health.status).toBe(200);
    const keys = await fetch(`${first.baseUrl}/api/v1/api-keys/`, { headers: { 'X-API-Key': credentials.api_key } });
    expect(keys.status).toBe(200);
    const me = await fetch(`${first.baseUrl}/api/v1/auth/me/`, { headers: { Authorization: `Bearer ${credentials.session_token}` } });
    expect(me.status).toBe(200);

    // npm start's clock is the machine's, movable forward at /_local/clock.
    const clockOf = async (baseUrl: string, init?: RequestInit) => {
      const response = await fetch(`${baseUrl}/_local/clock`, init);
      expect(response.status, await response.clone().text()).toBe(200);
      return new Date(((await response.json()) as { now: string }).now).getTime();
    };
    const clockAt = (init?: RequestInit) => clockOf(first.baseUrl, init);
    const before = Date.now();
    const read = await clockAt();
    expect(Math.abs(read - before)).toBeLessThan(60_000);
    const moved = await clockAt({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance_hours: 24 }) });
    expect(moved - read).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(moved - read).toBeLessThan(24 * 3_600_000 + 60_000);

    first.child.kill('SIGINT');
    expect(await exitOf(first.child)).toBe(0);

    const second = await start(dataDir);
    try {
      // The clock resumes where it was moved to (never earlier: the data and the scheduler's marks
      // are dated by it), and moves on from there.
      const resumed = await clockOf(second.baseUrl);
      expect(resumed - moved).toBeGreaterThanOrEqual(0);
      expect(resumed - moved).toBeLessThan(60_000);
      expect(second.output()).toContain(`Local clock resumed at `);
      const movedAgain = await clockOf(second.baseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance_hours: 1 }) });
      expect(movedAgain - resumed).toBeGreaterThanOrEqual(3_600_000);
      const again = JSON.parse(readFileSync(join(dataDir, 'dev-credentials.json'), 'utf8'));
      expect(again.api_key).toBe(credentials.api_key);
      expect(again.email).toBe(credentials.email);
      const listed = await fetch(`${second.baseUrl}/api/v1/api-keys/`, { headers: { 'X-API-Key': credentials.api_key } });
      expect(listed.status).toBe(200);
      // Data survived the restart: the same single key, used before.
      const body = (await listed.json()) as { api_keys: { last_used: string | null }[] };
      expect(body.api_keys).toEqual([
        {
          id: anId(),
          name: 'Development key',
          prefix: credentials.api_key.split('.')[0],
          is_active: true,
          last_used: aTimestamp(),
          created_at: aTimestamp(),
          updated_at: aTimestamp(),
        },
      ]);
    } finally {
      second.child.kill('SIGINT');
      await exitOf(second.child);
    }
  }, 120_000);

  it('says in one line that Java is missing and exits non-zero', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const child = spawn(process.execPath, [TSX, 'infra/local/start.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, PATH: bin, PORT: '0', DATA_DIR: join(dataDir, 'nojava') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    expect(await exitOf(child)).toBe(1);
    const lines = stderr.trim().split('\n').filter((line) => line.trim() !== '');
    expect(lines).toEqual(['Java 17+ is required for DynamoDB Local but `java` was not found on PATH (install e.g. openjdk-17-jre-headless).']);
    rmSync(bin, { recursive: true, force: true });
  }, 60_000);

  it('says in one line that the port is taken, exits non-zero, and leaves no DynamoDB Local running', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const busyData = join(dataDir, 'busy');
    try {
      const child = spawn(process.execPath, [TSX, 'infra/local/start.ts'], {
        cwd: REPO_ROOT,
        env: { ...process.env, PORT: String(port), DATA_DIR: busyData },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      expect(await exitOf(child)).toBe(1);
      expect(stderr.trim().split('\n').at(-1)).toBe(`Port ${port} is already in use: stop what listens there, or start on another one (PORT=3001 npm start).`);
      // The DynamoDB Local it started on the way was stopped: no process still names its data folder.
      const running = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(busyData));
      expect(running).toEqual([]);
    } finally {
      taken.close();
    }
  }, 60_000);
});
