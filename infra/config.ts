import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as v from 'valibot';
import { SETTINGS, settingDefault } from '../shared/config/settings';
import { DEFAULT_EDGE_CONFIG, type EdgeConfig, loadEdgeConfig } from './edge-config';

/**
 * Deployment settings, read from CDK context (`cdk.json`, or `-c key=value` on the command line).
 * Context given on the command line arrives as a string, so every number is parsed and checked:
 * a typo fails `cdk synth` with a readable message instead of deploying a wrong limit.
 */
export interface OutreachConfig {
  /** CloudFormation stack name; also seeds the deterministic session usage-key values. */
  stackName: string;
  /** API Gateway stage name. Paths already carry `/api/v1`, so this only shows up in the URL. */
  stageName: string;
  /** Per-API-key rate limit (the usage plan's throttle), in requests per minute. */
  rateLimitPerMinute: number;
  /** Per-API-key burst (the usage plan's bucket size). */
  rateLimitBurst: number;
  /** Number of gateway keys in the session pool (see docs/infrastructure.md). */
  sessionUsageKeyCount: number;
  /** Steady rate, per second, each session usage key allows. */
  sessionRateLimitPerSecond: number;
  /** Burst (token bucket size) of each session usage key. */
  sessionBurstLimit: number;
  /** CloudWatch Logs retention of every function's log group. */
  logRetention: RetentionDays;
  /** X-Ray tracing on the API stage and the functions. */
  tracing: boolean;
  /**
   * Base URL (DSN) of the network/email provider, e.g. `https://api8.unipile.com:13851`. Its access
   * token is the stack's ProviderAccessToken secret (see docs/integrations.md).
   */
  providerBaseUrl: string;
  /**
   * Base URL of the B2B people/company directory behind prospect search (wire protocol in
   * docs/lead-lists.md). Its API key is the stack's DirectoryApiKey secret. The default is a
   * placeholder (`.invalid` never resolves): searches answer 502 until it is set.
   */
  directoryBaseUrl: string;
  /** Directory searches per workspace per calendar month. */
  searchQuotaPerMonth: number;
  /** Leads one lead list may hold. */
  maxLeadsPerList: number;
  /** The WAF web ACL's and the stage's limits (infra/edge-config.ts). */
  edge: EdgeConfig;
}

export const DEFAULT_CONFIG: OutreachConfig = {
  stackName: 'OutreachService',
  stageName: 'v1',
  rateLimitPerMinute: settingDefault('rateLimitPerMinute'),
  rateLimitBurst: settingDefault('rateLimitBurst'),
  sessionUsageKeyCount: 8,
  sessionRateLimitPerSecond: 10,
  sessionBurstLimit: 100,
  logRetention: RetentionDays.ONE_MONTH,
  tracing: true,
  providerBaseUrl: 'https://api1.unipile.com:13111',
  directoryBaseUrl: 'https://directory.invalid',
  searchQuotaPerMonth: settingDefault('searchQuotaPerMonth'),
  maxLeadsPerList: settingDefault('maxLeadsPerList'),
  edge: DEFAULT_EDGE_CONFIG,
};

/** Anything with CDK's `tryGetContext` (an App's or a Stack's `node`). */
export interface ContextSource {
  tryGetContext(key: string): unknown;
}

const RETENTION_VALUES = new Set<number>(
  Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'),
);

function positiveNumber(key: string, raw: unknown, fallback: number, { integer }: { integer: boolean }): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`Invalid CDK context ${key}: expected a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * A context value that is also a function setting: checked by the setting's own declaration
 * (shared/config/settings.ts), so the stack and the functions agree on what is valid.
 */
function declared(key: 'rateLimitPerMinute' | 'rateLimitBurst' | 'searchQuotaPerMonth' | 'maxLeadsPerList', raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return settingDefault(key);
  const parsed = v.safeParse(SETTINGS[key].schema, typeof raw === 'number' ? String(raw) : raw);
  if (!parsed.success) throw new Error(`Invalid CDK context ${key}: ${JSON.stringify(raw)} ${parsed.issues[0]?.message ?? 'is invalid'}`);
  return parsed.output;
}

function text(key: string, raw: unknown, fallback: string, pattern: RegExp): string {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw !== 'string' || !pattern.test(raw)) {
    throw new Error(`Invalid CDK context ${key}: ${JSON.stringify(raw)} does not match ${pattern}`);
  }
  return raw;
}

function flag(key: string, raw: unknown, fallback: boolean): boolean {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`Invalid CDK context ${key}: expected true or false, got ${JSON.stringify(raw)}`);
}

/** Reads and validates the context into a typed config; unset keys take {@link DEFAULT_CONFIG}. */
export function loadConfig(context: ContextSource): OutreachConfig {
  const get = (key: string) => context.tryGetContext(key);
  const logRetentionDays = positiveNumber('logRetentionDays', get('logRetentionDays'), DEFAULT_CONFIG.logRetention, { integer: true });
  if (!RETENTION_VALUES.has(logRetentionDays)) {
    throw new Error(`Invalid CDK context logRetentionDays: ${logRetentionDays} is not a CloudWatch Logs retention period`);
  }
  const sessionUsageKeyCount = positiveNumber('sessionUsageKeyCount', get('sessionUsageKeyCount'), DEFAULT_CONFIG.sessionUsageKeyCount, {
    integer: true,
  });
  if (sessionUsageKeyCount > 100) {
    // Each is an API Gateway key; the account has 10,000 in all, shared with the customers' keys.
    throw new Error(`Invalid CDK context sessionUsageKeyCount: ${sessionUsageKeyCount} is more than 100`);
  }
  return {
    // CloudFormation stack names: letters, digits and hyphens, starting with a letter.
    stackName: text('stackName', get('stackName'), DEFAULT_CONFIG.stackName, /^[A-Za-z][A-Za-z0-9-]{0,39}$/),
    stageName: text('stageName', get('stageName'), DEFAULT_CONFIG.stageName, /^[A-Za-z0-9_]{1,64}$/),
    rateLimitPerMinute: declared('rateLimitPerMinute', get('rateLimitPerMinute')),
    rateLimitBurst: declared('rateLimitBurst', get('rateLimitBurst')),
    sessionUsageKeyCount,
    sessionRateLimitPerSecond: positiveNumber(
      'sessionRateLimitPerSecond',
      get('sessionRateLimitPerSecond'),
      DEFAULT_CONFIG.sessionRateLimitPerSecond,
      { integer: false },
    ),
    sessionBurstLimit: positiveNumber('sessionBurstLimit', get('sessionBurstLimit'), DEFAULT_CONFIG.sessionBurstLimit, { integer: true }),
    logRetention: logRetentionDays as RetentionDays,
    tracing: flag('tracing', get('tracing'), DEFAULT_CONFIG.tracing),
    providerBaseUrl: text('providerBaseUrl', get('providerBaseUrl'), DEFAULT_CONFIG.providerBaseUrl, /^https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?\/?$/),
    directoryBaseUrl: text('directoryBaseUrl', get('directoryBaseUrl'), DEFAULT_CONFIG.directoryBaseUrl, /^https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?(\/[A-Za-z0-9._~/-]*)?$/),
    searchQuotaPerMonth: declared('searchQuotaPerMonth', get('searchQuotaPerMonth')),
    maxLeadsPerList: declared('maxLeadsPerList', get('maxLeadsPerList')),
    edge: loadEdgeConfig(get),
  };
}
