import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../../infra/config';
import { cdkJsonContext } from './template-helpers';

const from = (context: Record<string, unknown>) => loadConfig({ tryGetContext: (key) => context[key] });

describe('loadConfig', () => {
  it('uses the defaults when nothing is set', () => {
    expect(from({})).toEqual(DEFAULT_CONFIG);
  });

  it('reads cdk.json', () => {
    expect(from(cdkJsonContext())).toEqual({
      stackName: 'OutreachService',
      stageName: 'v1',
      rateLimitPerMinute: 50,
      sessionUsageKeyCount: 8,
      sessionRateLimitPerSecond: 10,
      sessionBurstLimit: 100,
      logRetention: RetentionDays.ONE_MONTH,
      tracing: true,
      providerBaseUrl: 'https://api1.unipile.com:13111',
      directoryBaseUrl: 'https://directory.invalid',
      searchQuotaPerMonth: 1000,
      maxLeadsPerList: 100_000,
    });
  });

  it('parses the strings `-c key=value` gives', () => {
    expect(
      from({ rateLimitPerMinute: '120', sessionRateLimitPerSecond: '2.5', logRetentionDays: '7', tracing: 'false', stackName: 'Outreach-dev' }),
    ).toMatchObject({
      rateLimitPerMinute: 120,
      sessionRateLimitPerSecond: 2.5,
      logRetention: RetentionDays.ONE_WEEK,
      tracing: false,
      stackName: 'Outreach-dev',
    });
  });

  it.each([
    [{ rateLimitPerMinute: 0 }, /rateLimitPerMinute/],
    [{ rateLimitPerMinute: 'fifty' }, /rateLimitPerMinute/],
    [{ rateLimitPerMinute: 1.5 }, /rateLimitPerMinute/],
    [{ sessionUsageKeyCount: 500 }, /sessionUsageKeyCount/],
    [{ logRetentionDays: 31 }, /logRetentionDays/],
    [{ stackName: '1stack' }, /stackName/],
    [{ stackName: 'x'.repeat(41) }, /stackName/],
    [{ stageName: 'v 1' }, /stageName/],
    [{ providerBaseUrl: 'http://api.example.com' }, /providerBaseUrl/],
    [{ providerBaseUrl: 'https://api.example.com/path?x=1' }, /providerBaseUrl/],
    [{ tracing: 'yes' }, /tracing/],
    [{ directoryBaseUrl: 'http://directory.example.com' }, /directoryBaseUrl/],
    [{ searchQuotaPerMonth: 0 }, /searchQuotaPerMonth/],
    [{ maxLeadsPerList: 'many' }, /maxLeadsPerList/],
  ])('rejects %j', (context, message) => {
    expect(() => from(context)).toThrow(message);
  });
});
