import { describe, expect, it } from 'vitest';
import { SETTINGS, type SettingName, readSettings, settingDefault, settingsFrom, toEnvironment } from '../../../shared/config/settings';
import { AUTHORIZER, FUNCTION_GROUPS } from '../../../shared/http/route-table';
import { QUEUES } from '../../../shared/runtime/catalog';

/** What a CDK token looks like before synthesis: a string that must pass through untouched. */
const TOKEN = ['$', '{Token[TOKEN.1]}'].join('');

describe('settings, declared once', () => {
  it('reads a function’s settings from its environment, with declared defaults for what is unset', () => {
    expect(
      readSettings(FUNCTION_GROUPS.leadLists.settings, {
        TABLE_NAME: 'outreach',
        RUNTIME: 'aws',
        MAX_LEADS_PER_LIST: '500',
        CAMPAIGN_SCHEDULING_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/campaign-scheduling',
      }),
    ).toEqual({
      tableName: 'outreach',
      dynamodbEndpoint: undefined,
      trackCapacity: false,
      runtime: 'aws',
      awsRegion: 'us-east-1',
      maxLeadsPerList: 500,
      sqsEndpoint: undefined,
      campaignSchedulingQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/campaign-scheduling',
    });
    expect(readSettings(['webhookRetrySchedule', 'webhookAllowLoopback', 'sessionUsageKeys'], {})).toEqual({
      webhookRetrySchedule: [60, 300, 1_800, 7_200, 18_000, 36_000, 43_200],
      webhookAllowLoopback: false,
      sessionUsageKeys: [],
    });
    expect(readSettings(['webhookRetrySchedule', 'webhookAllowLoopback', 'sessionUsageKeys'], {
      WEBHOOK_RETRY_SCHEDULE: '0,5',
      WEBHOOK_ALLOW_LOOPBACK: '1',
      SESSION_USAGE_KEYS: 'a,b',
    })).toEqual({ webhookRetrySchedule: [0, 5], webhookAllowLoopback: true, sessionUsageKeys: ['a', 'b'] });
  });

  it('names every missing or invalid variable in one line', () => {
    expect(() =>
      readSettings(['tableName', 'runtime', 'maxLeadsPerList', 'sessionSecret', 'providerBaseUrl'], {
        RUNTIME: 'cloud',
        MAX_LEADS_PER_LIST: '12abc',
        SESSION_SECRET: 'short',
        PROVIDER_BASE_URL: 'not a url',
      }),
    ).toThrow(
      'Invalid environment: TABLE_NAME: is required; RUNTIME: must be aws or local; MAX_LEADS_PER_LIST: must be an integer; SESSION_SECRET: must be at least 32 characters; PROVIDER_BASE_URL: must be a URL',
    );
    expect(() => readSettings(['maxLeadsPerList'], { MAX_LEADS_PER_LIST: '0' })).toThrow('Invalid environment: MAX_LEADS_PER_LIST: must be at least 1');
    // Timeouts the functions that make those calls can hold: a connection check in 12 s, the sender
    // two calls and 6 s; a sync enrichment one call and 6 s of its 28 s.
    expect(() => readSettings(['providerTimeoutMs'], { PROVIDER_TIMEOUT_MS: '10001' })).toThrow('Invalid environment: PROVIDER_TIMEOUT_MS: must be at most 10000');
    expect(() => readSettings(['enrichmentTimeoutMs'], { ENRICHMENT_TIMEOUT_MS: '20001' })).toThrow('Invalid environment: ENRICHMENT_TIMEOUT_MS: must be at most 20000');
    expect(readSettings(['providerTimeoutMs', 'enrichmentTimeoutMs'], { PROVIDER_TIMEOUT_MS: '10000', ENRICHMENT_TIMEOUT_MS: '20000' })).toEqual({ providerTimeoutMs: 10_000, enrichmentTimeoutMs: 20_000 });
  });

  it('builds config objects from plain values and defaults for the local runtime, refusing missing required ones', () => {
    expect(settingsFrom(['tableName', 'maxLeadsPerList', 'searchQuotaPerMonth'], { tableName: 't', maxLeadsPerList: 3 })).toEqual({
      tableName: 't',
      maxLeadsPerList: 3,
      searchQuotaPerMonth: 1000,
    });
    expect(() => settingsFrom(['tableName', 'sessionSecret'], {})).toThrow('Missing settings: tableName, sessionSecret');
  });

  it('writes values back as the environment text the entries read (CDK), leaving undefined ones to their defaults', () => {
    const environment = toEnvironment(['tableName', 'maxLeadsPerList', 'webhookAllowLoopback', 'webhookRetrySchedule', 'sessionUsageKeys', 'publicApiUrl'], {
      tableName: TOKEN,
      maxLeadsPerList: 500,
      webhookAllowLoopback: false,
      webhookRetrySchedule: [1, 2],
      sessionUsageKeys: ['k1', 'k2'],
      publicApiUrl: undefined,
    });
    expect(environment).toEqual({
      TABLE_NAME: TOKEN,
      MAX_LEADS_PER_LIST: '500',
      WEBHOOK_ALLOW_LOOPBACK: '0',
      WEBHOOK_RETRY_SCHEDULE: '1,2',
      SESSION_USAGE_KEYS: 'k1,k2',
    });
    const names = Object.keys(environment).map((env) => Object.entries(SETTINGS).find(([, s]) => s.env === env)?.[0] as SettingName);
    expect(readSettings(names, environment)).toEqual({
      tableName: TOKEN,
      maxLeadsPerList: 500,
      webhookAllowLoopback: false,
      webhookRetrySchedule: [1, 2],
      sessionUsageKeys: ['k1', 'k2'],
    });
  });

  it('keeps the documented defaults', () => {
    expect([
      settingDefault('rateLimitPerMinute'),
      settingDefault('maxActiveKeysPerUser'),
      settingDefault('maxLeadsPerList'),
      settingDefault('searchQuotaPerMonth'),
      settingDefault('providerTimeoutMs'),
      settingDefault('webhookTimeoutMs'),
      settingDefault('sessionTtlDays'),
    ]).toEqual([50, 25, 100_000, 1000, 8000, 10_000, 7]);
  });

  it('gives every setting one environment variable, and every function only declared settings', () => {
    const variables = Object.values(SETTINGS).map((setting) => setting.env);
    expect(new Set(variables).size).toBe(variables.length);
    const declared = [...Object.values(FUNCTION_GROUPS).map((group) => group.settings), AUTHORIZER.settings, ...QUEUES.map((queue) => queue.settings)];
    for (const settings of declared) for (const name of settings) expect(Object.keys(SETTINGS)).toContain(name);
    expect(FUNCTION_GROUPS.health.settings).toEqual([]);
  });
});
