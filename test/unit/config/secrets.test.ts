import { describe, expect, it } from 'vitest';
import {
  SECRET_MAX_AGE_MS,
  SECRET_RETRY_AFTER_FAILURE_MS,
  SECRET_SETTINGS,
  createSecretCache,
  secretArnVariable,
} from '../../../shared/config/secrets';
import { SETTINGS, type SettingName } from '../../../shared/config/settings';
import { lambdaEntry } from '../../../shared/runtime/lambda-entry';
import { ManualClock } from '../../../shared/time/clock';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:SessionSecret-AbCdEf';
const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);

/** Secrets Manager as a map: records every read, and fails while `failing` is set. */
function fakeSecretsManager(values: Record<string, string>) {
  const reads: string[] = [];
  let failing: Error | undefined;
  let held: Promise<void> | undefined;
  return {
    values,
    reads,
    fail(error: Error | undefined) {
      failing = error;
    },
    /** Holds every read until the returned release is called (to see callers share one read). */
    hold(): () => void {
      let release = () => {};
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
    async fetch(secretId: string): Promise<string> {
      reads.push(secretId);
      if (held) await held;
      if (failing) throw failing;
      const value = values[secretId];
      if (value === undefined) throw new Error(`ResourceNotFoundException: ${secretId}`);
      return value;
    },
  };
}

describe('secret settings', () => {
  it('lists exactly the settings declared secret, each carried by <VARIABLE>_ARN in AWS', () => {
    const declared = (Object.keys(SETTINGS) as SettingName[]).filter((name) => (SETTINGS[name] as { secret?: true }).secret === true);
    expect([...SECRET_SETTINGS].sort()).toEqual(declared.sort());
    expect(SECRET_SETTINGS.map(secretArnVariable)).toEqual([
      'SESSION_SECRET_ARN',
      'DIRECTORY_API_KEY_ARN',
      'PROVIDER_ACCESS_TOKEN_ARN',
      'PROVIDER_WEBHOOK_SECRET_ARN',
      'UNSUBSCRIBE_SECRET_ARN',
      'WEBHOOK_SECRET_KEY_ARN',
      'HUNTER_API_KEY_ARN',
      'PROSPEO_API_KEY_ARN',
      'LUSHA_API_KEY_ARN',
    ]);
  });
});

describe('secret cache', () => {
  it('reads a secret once, uses it for five minutes by the clock, then reads the new value', async () => {
    const clock = new ManualClock('2026-11-23T12:00:00.000Z');
    const store = fakeSecretsManager({ [ARN]: OLD });
    const cache = createSecretCache({ fetch: (id) => store.fetch(id), clock });
    expect(SECRET_MAX_AGE_MS).toBe(300_000);

    expect(await cache.get(ARN)).toBe(OLD);
    store.values[ARN] = NEW;
    clock.advance(SECRET_MAX_AGE_MS - 1);
    expect(await cache.get(ARN)).toBe(OLD);
    expect(store.reads).toEqual([ARN]);
    clock.advance(1);
    expect(await cache.get(ARN)).toBe(NEW);
    expect(store.reads).toEqual([ARN, ARN]);
  });

  it('makes one read for callers that ask at the same time', async () => {
    const store = fakeSecretsManager({ [ARN]: OLD });
    const release = store.hold();
    const cache = createSecretCache({ fetch: (id) => store.fetch(id), clock: new ManualClock('2026-11-23T12:00:00.000Z') });
    const both = Promise.all([cache.get(ARN), cache.get(ARN)]);
    release();
    expect(await both).toEqual([OLD, OLD]);
    expect(store.reads).toEqual([ARN]);
  });

  it('keeps the value it holds when a refresh fails, says so without the value, and tries again 30 s later', async () => {
    const clock = new ManualClock('2026-11-23T12:00:00.000Z');
    const store = fakeSecretsManager({ [ARN]: OLD });
    const stale: [string, string][] = [];
    const cache = createSecretCache({ fetch: (id) => store.fetch(id), clock, onStale: (id, error) => stale.push([id, String(error)]) });
    await cache.get(ARN);

    clock.advance(SECRET_MAX_AGE_MS);
    store.fail(new Error('ThrottlingException'));
    expect(await cache.get(ARN)).toBe(OLD);
    expect(stale).toEqual([[ARN, 'Error: ThrottlingException']]);
    clock.advance(SECRET_RETRY_AFTER_FAILURE_MS - 1);
    expect(await cache.get(ARN)).toBe(OLD);
    expect(store.reads).toEqual([ARN, ARN]);

    store.fail(undefined);
    store.values[ARN] = NEW;
    clock.advance(1);
    expect(await cache.get(ARN)).toBe(NEW);
    expect(store.reads).toEqual([ARN, ARN, ARN]);
  });

  it('fails a secret it never read, and reads again on the next call', async () => {
    const store = fakeSecretsManager({});
    const cache = createSecretCache({ fetch: (id) => store.fetch(id), clock: new ManualClock('2026-11-23T12:00:00.000Z') });
    await expect(cache.get(ARN)).rejects.toThrow(`ResourceNotFoundException: ${ARN}`);
    store.values[ARN] = OLD;
    expect(await cache.get(ARN)).toBe(OLD);
    expect(store.reads).toEqual([ARN, ARN]);
  });
});

describe('Lambda entry', () => {
  /** A builder whose handler answers with the secret it was built with; records each build. */
  const recordingBuilder = () => {
    const builds: { sessionSecret: string; sessionTtlDays: number }[] = [];
    const build = (config: { sessionSecret: string; sessionTtlDays: number }) => {
      builds.push(config);
      return async (event: string) => `${event}:${config.sessionSecret}`;
    };
    return { builds, build };
  };
  const names = ['sessionSecret', 'sessionTtlDays'] as const;

  it('takes a secret given as a plain variable as is, with no handler in between and no Secrets Manager', async () => {
    const { builds, build } = recordingBuilder();
    const store = fakeSecretsManager({});
    const clock = new ManualClock('2026-11-23T12:00:00.000Z');
    const handler = lambdaEntry(build, names, { SESSION_SECRET: OLD, SESSION_TTL_DAYS: '3' }, { clock }, {
      secrets: createSecretCache({ fetch: (id) => store.fetch(id), clock }),
    });
    expect(await handler('event')).toBe(`event:${OLD}`);
    expect(builds).toEqual([{ sessionSecret: OLD, sessionTtlDays: 3 }]);
    expect(store.reads).toEqual([]);
  });

  it('reads a secret by its ARN, and after the cache time answers with the new value (no new environment, no deploy)', async () => {
    const { builds, build } = recordingBuilder();
    const store = fakeSecretsManager({ [ARN]: OLD });
    const clock = new ManualClock('2026-11-23T12:00:00.000Z');
    const handler = lambdaEntry(build, names, { SESSION_SECRET_ARN: ARN, SESSION_SECRET: 'ignored when an ARN is given' }, { clock }, {
      secrets: createSecretCache({ fetch: (id) => store.fetch(id), clock }),
    });
    expect(await handler('first')).toBe(`first:${OLD}`);
    expect(await handler('second')).toBe(`second:${OLD}`);
    // Built once for the value read while the function initialised; the next calls reuse it.
    expect(builds).toEqual([{ sessionSecret: OLD, sessionTtlDays: 7 }]);
    expect(store.reads).toEqual([ARN]);

    store.values[ARN] = NEW;
    clock.advance(SECRET_MAX_AGE_MS - 1);
    expect(await handler('before')).toBe(`before:${OLD}`);
    clock.advance(1);
    expect(await handler('after')).toBe(`after:${NEW}`);
    expect(builds).toEqual([
      { sessionSecret: OLD, sessionTtlDays: 7 },
      { sessionSecret: NEW, sessionTtlDays: 7 },
    ]);
    // A refresh that finds the same value builds nothing.
    clock.advance(SECRET_MAX_AGE_MS);
    expect(await handler('same')).toBe(`same:${NEW}`);
    expect(builds).toHaveLength(2);
    expect(store.reads).toEqual([ARN, ARN, ARN]);
  });

  it('fails an invocation whose secret value is not a valid setting, without quoting it', async () => {
    const { build } = recordingBuilder();
    const clock = new ManualClock('2026-11-23T12:00:00.000Z');
    const store = fakeSecretsManager({ [ARN]: 'short-placeholder' });
    const handler = lambdaEntry(build, names, { SESSION_SECRET_ARN: ARN }, { clock }, { secrets: createSecretCache({ fetch: (id) => store.fetch(id), clock }) });
    await expect(handler('event')).rejects.toThrow(/^Invalid secret value: SESSION_SECRET: must be at least 32 characters$/);
  });
});
