import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALARM_THRESHOLDS, DEFAULT_CONFIG, loadConfig } from '../../infra/config';
import { cdkJsonContext } from './template-helpers';

const from = (context: Record<string, unknown>) => loadConfig({ tryGetContext: (key) => context[key] });

/** The edge limits documented in docs/infrastructure.md and docs/operations.md. */
const DOCUMENTED_EDGE = {
  wafIpLimitPer5Minutes: 2000,
  wafAnonymousIpLimitPerMinute: 20,
  stageRateLimit: 500,
  stageBurstLimit: 1000,
  anonymousRateLimit: 50,
  anonymousBurstLimit: 100,
};

describe('loadConfig', () => {
  it('uses the defaults when nothing is set', () => {
    // The defaults documented in docs/infrastructure.md.
    const documented = {
      stackName: 'OutreachService',
      stageName: 'v1',
      rateLimitPerMinute: 50,
      rateLimitBurst: 10,
      sessionUsageKeyCount: 8,
      sessionRateLimitPerSecond: 10,
      sessionBurstLimit: 100,
      logRetention: RetentionDays.ONE_MONTH,
      tracing: true,
      providerBaseUrl: 'https://api1.unipile.com:13111',
      directoryBaseUrl: 'https://directory.invalid',
      searchQuotaPerMonth: 1000,
      maxLeadsPerList: 100_000,
      edge: DOCUMENTED_EDGE,
      alarmEmail: undefined,
      alarmThresholds: {
        lambdaErrors: 3,
        lambdaThrottles: 1,
        api5xxPercent: 5,
        api5xxMinRequests: 20,
        apiP99LatencyMs: 5000,
        dynamoThrottledRequests: 10,
        dynamoSystemErrors: 5,
        schedulerSilentMinutes: 5,
        accountPauses: 1,
        queueAgeMinutes: {},
      },
      reservedConcurrency: {},
      localIndexProjection: 'KEYS_ONLY',
    };
    expect(from({})).toEqual(documented);
    expect(DEFAULT_CONFIG).toEqual(documented);
    expect(RetentionDays.ONE_MONTH).toBe(30);
  });

  it('keeps a table created with ALL local indexes when told (changing the projection replaces the table)', () => {
    expect(from({ localIndexProjection: 'ALL' }).localIndexProjection).toBe('ALL');
    expect(from({ localIndexProjection: 'KEYS_ONLY' }).localIndexProjection).toBe('KEYS_ONLY');
  });

  it('reads cdk.json', () => {
    expect(from(cdkJsonContext())).toEqual({
      stackName: 'OutreachService',
      stageName: 'v1',
      rateLimitPerMinute: 50,
      rateLimitBurst: 10,
      sessionUsageKeyCount: 8,
      sessionRateLimitPerSecond: 10,
      sessionBurstLimit: 100,
      logRetention: RetentionDays.ONE_MONTH,
      tracing: true,
      providerBaseUrl: 'https://api1.unipile.com:13111',
      directoryBaseUrl: 'https://directory.invalid',
      searchQuotaPerMonth: 1000,
      maxLeadsPerList: 100_000,
      edge: DOCUMENTED_EDGE,
      alarmThresholds: DEFAULT_ALARM_THRESHOLDS,
      reservedConcurrency: {},
      localIndexProjection: 'KEYS_ONLY',
    });
  });

  it('parses the strings `-c key=value` gives', () => {
    expect(
      from({ rateLimitPerMinute: '120', sessionRateLimitPerSecond: '2.5', logRetentionDays: '7', tracing: 'false', stackName: 'Outreach-dev' }),
    ).toEqual({
      stackName: 'Outreach-dev',
      stageName: 'v1',
      rateLimitPerMinute: 120,
      rateLimitBurst: 10,
      sessionUsageKeyCount: 8,
      sessionRateLimitPerSecond: 2.5,
      sessionBurstLimit: 100,
      logRetention: RetentionDays.ONE_WEEK,
      tracing: false,
      providerBaseUrl: 'https://api1.unipile.com:13111',
      directoryBaseUrl: 'https://directory.invalid',
      searchQuotaPerMonth: 1000,
      maxLeadsPerList: 100_000,
      edge: DOCUMENTED_EDGE,
      alarmThresholds: DEFAULT_ALARM_THRESHOLDS,
      reservedConcurrency: {},
      localIndexProjection: 'KEYS_ONLY',
    });
  });

  it('reads the monitoring settings: the alarm email, every threshold and reserved concurrency, as strings or objects', () => {
    const config = from({
      alarmEmail: 'ops@example.com',
      alarmLambdaErrors: '5',
      alarmLambdaThrottles: 2,
      alarmApi5xxPercent: '2.5',
      alarmApi5xxMinRequests: '50',
      alarmApiP99LatencyMs: '3000',
      alarmDynamoThrottledRequests: 20,
      alarmDynamoSystemErrors: '1',
      alarmSchedulerSilentMinutes: '10',
      alarmAccountPauses: '3',
      alarmQueueAgeMinutes: '{"outreach": 30}',
      reservedConcurrency: '{"authorizer": 50, "http:leadLists": 10, "queue:outreach": 5, "schedule:outreach-scheduler": 2}',
    });
    expect(config.alarmEmail).toBe('ops@example.com');
    expect(config.alarmThresholds).toEqual({
      lambdaErrors: 5,
      lambdaThrottles: 2,
      api5xxPercent: 2.5,
      api5xxMinRequests: 50,
      apiP99LatencyMs: 3000,
      dynamoThrottledRequests: 20,
      dynamoSystemErrors: 1,
      schedulerSilentMinutes: 10,
      accountPauses: 3,
      queueAgeMinutes: { outreach: 30 },
    });
    expect(config.reservedConcurrency).toEqual({ authorizer: 50, 'http:leadLists': 10, 'queue:outreach': 5, 'schedule:outreach-scheduler': 2 });
    // cdk.json gives objects as they are.
    expect(from({ reservedConcurrency: { authorizer: 20 }, alarmQueueAgeMinutes: { webhooks: 60 } })).toMatchObject({
      reservedConcurrency: { authorizer: 20 },
      alarmThresholds: { queueAgeMinutes: { webhooks: 60 } },
    });
  });

  it.each([
    [{ rateLimitPerMinute: 0 }, 'Invalid CDK context rateLimitPerMinute: 0 must be at least 1'],
    [{ rateLimitPerMinute: 'fifty' }, 'Invalid CDK context rateLimitPerMinute: "fifty" must be an integer'],
    [{ rateLimitPerMinute: 1.5 }, 'Invalid CDK context rateLimitPerMinute: 1.5 must be an integer'],
    [{ sessionUsageKeyCount: 500 }, 'Invalid CDK context sessionUsageKeyCount: 500 is more than 100'],
    [{ logRetentionDays: 31 }, 'Invalid CDK context logRetentionDays: 31 is not a CloudWatch Logs retention period'],
    [{ stackName: '1stack' }, 'Invalid CDK context stackName: "1stack" does not match /^[A-Za-z][A-Za-z0-9-]{0,39}$/'],
    [{ stackName: 'x'.repeat(41) }, `Invalid CDK context stackName: "${'x'.repeat(41)}" does not match /^[A-Za-z][A-Za-z0-9-]{0,39}$/`],
    [{ stageName: 'v 1' }, 'Invalid CDK context stageName: "v 1" does not match /^[A-Za-z0-9_]{1,64}$/'],
    [{ providerBaseUrl: 'http://api.example.com' }, 'Invalid CDK context providerBaseUrl: "http://api.example.com" does not match /^https:\\/\\/[A-Za-z0-9.-]+(:\\d{1,5})?\\/?$/'],
    [
      { providerBaseUrl: 'https://api.example.com/path?x=1' },
      'Invalid CDK context providerBaseUrl: "https://api.example.com/path?x=1" does not match /^https:\\/\\/[A-Za-z0-9.-]+(:\\d{1,5})?\\/?$/',
    ],
    [{ tracing: 'yes' }, 'Invalid CDK context tracing: expected true or false, got "yes"'],
    [
      { directoryBaseUrl: 'http://directory.example.com' },
      'Invalid CDK context directoryBaseUrl: "http://directory.example.com" does not match /^https:\\/\\/[A-Za-z0-9.-]+(:\\d{1,5})?(\\/[A-Za-z0-9._~/-]*)?$/',
    ],
    [{ searchQuotaPerMonth: 0 }, 'Invalid CDK context searchQuotaPerMonth: 0 must be at least 1'],
    [{ maxLeadsPerList: 'many' }, 'Invalid CDK context maxLeadsPerList: "many" must be an integer'],
    [{ alarmEmail: 'ops' }, 'Invalid CDK context alarmEmail: "ops" does not match /^[^@\\s"]+@[^@\\s"]+\\.[^@\\s"]+$/'],
    [{ alarmLambdaErrors: '0' }, 'Invalid CDK context alarmLambdaErrors: expected a positive integer, got "0"'],
    [{ alarmApi5xxPercent: 'lots' }, 'Invalid CDK context alarmApi5xxPercent: expected a positive number, got "lots"'],
    [{ alarmApiP99LatencyMs: 1.5 }, 'Invalid CDK context alarmApiP99LatencyMs: expected a positive integer, got 1.5'],
    [{ alarmQueueAgeMinutes: '[1]' }, 'Invalid CDK context alarmQueueAgeMinutes: expected a JSON object, got "[1]"'],
    [{ alarmQueueAgeMinutes: { outreach: 0 } }, 'Invalid CDK context alarmQueueAgeMinutes.outreach: expected a positive integer, got 0'],
    [{ reservedConcurrency: '{authorizer: 5}' }, 'Invalid CDK context reservedConcurrency: expected a JSON object, got "{authorizer: 5}"'],
    [
      { reservedConcurrency: { outreach: 5 } },
      'Invalid CDK context reservedConcurrency: "outreach" does not match /^(authorizer|http:[A-Za-z0-9]+|queue:[a-z0-9-]+|schedule:[a-z0-9-]+)$/',
    ],
    [{ reservedConcurrency: { authorizer: 0 } }, 'Invalid CDK context reservedConcurrency.authorizer: expected a positive integer, got 0'],
    [{ reservedConcurrency: { authorizer: null } }, 'Invalid CDK context reservedConcurrency.authorizer: no value'],
    [{ localIndexProjection: 'INCLUDE' }, 'Invalid CDK context localIndexProjection: "INCLUDE" does not match /^(KEYS_ONLY|ALL)$/'],
  ])('rejects %j', (context, message) => {
    expect(() => from(context)).toThrow(expect.objectContaining({ message }));
  });
});
