import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as v from 'valibot';
import { SETTINGS, settingDefault } from '../shared/config/settings';
import { LOCAL_INDEX_PROJECTION, type LocalIndexProjection } from '../shared/db/table-schema';
import { DEFAULT_EDGE_CONFIG, type EdgeConfig, loadEdgeConfig } from './edge-config';
import { SESSION_PLAN_DEFAULTS } from './session-plan';

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
  /**
   * Where alarm notifications go: an email subscription of the alarm topic. Unset: the topic exists
   * without a subscriber (subscribe to it yourself, see docs/operations.md).
   */
  alarmEmail?: string | undefined;
  /** Alarm thresholds (docs/operations.md#alarms); each has its own context key (ALARM_CONTEXT_KEYS). */
  alarmThresholds: AlarmThresholds;
  /**
   * Reserved concurrency per function, e.g. `{"authorizer": 50, "queue:outreach": 5}`. Empty by
   * default: reserving fails a deploy on an account whose concurrency quota is low (new accounts
   * have 10), since AWS keeps 100 unreserved. Keys: `authorizer`, `http:<group>`, `queue:<name>`,
   * `schedule:<name>`; the stack rejects a key naming no function.
   */
  reservedConcurrency: Readonly<Record<string, number>>;
  /**
   * What the table's local indexes copy: `KEYS_ONLY` (default) or `ALL`, which a stack deployed
   * before 2026-11-26 keeps until its data is copied to a new table: changing it replaces the table
   * (docs/deploy.md, "Upgrading a table created with ALL local indexes"). The code works with both.
   */
  localIndexProjection: LocalIndexProjection;
}

/**
 * What makes each alarm fire (docs/operations.md#alarms). Every function, queue and API alarm is
 * evaluated over 5-minute periods; the dead-letter alarms (one message) are fixed in the constructs.
 */
export interface AlarmThresholds {
  /** Errors of one function in 5 minutes (crashes, timeouts; handled 500s are the API's 5xx alarm). */
  lambdaErrors: number;
  /** Throttled invocations of one function in 5 minutes. */
  lambdaThrottles: number;
  /** Share of API requests answered 5xx in 5 minutes, in percent... */
  api5xxPercent: number;
  /** ...counted only from this many requests in the 5 minutes. */
  api5xxMinRequests: number;
  /** p99 of the API's latency, in milliseconds, for 3 periods in a row. */
  apiP99LatencyMs: number;
  /** Throttled table requests (all operations) in 5 minutes. */
  dynamoThrottledRequests: number;
  /** DynamoDB internal errors (all operations) in 5 minutes. */
  dynamoSystemErrors: number;
  /** Minutes without an invocation of the outreach scheduler (it runs every minute). */
  schedulerSilentMinutes: number;
  /** Sender accounts the engine paused until the provider reports them active, in 5 minutes. */
  accountPauses: number;
  /**
   * Per queue (catalog name): minutes its oldest message may wait. Overrides the catalog's
   * `oldestMessageAlarmMinutes`; empty by default.
   */
  queueAgeMinutes: Readonly<Record<string, number>>;
}

/** Each threshold's default, and why. */
export const DEFAULT_ALARM_THRESHOLDS: AlarmThresholds = {
  // One error can be a transient crash the retry absorbs (SQS redelivers, the scheduler retries);
  // three in 5 minutes is a pattern: a bug, a timeout, a dependency down.
  lambdaErrors: 3,
  // Lambda throttles only when the account's (or the function's reserved) concurrency is used up:
  // on the API that is a request the caller saw fail, so any is worth a look.
  lambdaThrottles: 1,
  // 5% of requests failing on the server side is beyond the odd bad request: a broken deploy,
  // a function crashing, the table throttling.
  api5xxPercent: 5,
  // Below 20 requests in 5 minutes one error would be 5%: quiet hours would page on a single 500.
  api5xxMinRequests: 20,
  // Reads answer in well under a second; imports and bulk moves take seconds (their functions time
  // out at 20-28 s). A p99 over 5 s for 15 minutes is slowness most callers feel.
  apiP99LatencyMs: 5000,
  // The SDK retries a throttled request (with backoff), so a few are absorbed; 10 in 5 minutes is
  // a hot key or a burst past the on-demand headroom, and requests that failed or crawled.
  dynamoThrottledRequests: 10,
  // DynamoDB's own 500s are retried by the SDK; several in 5 minutes is a service event.
  dynamoSystemErrors: 5,
  // The scheduler runs every minute: 5 minutes without a run is a disabled or failing schedule,
  // and no due action is sent meanwhile.
  schedulerSilentMinutes: 5,
  // A pause until the provider reports the account active again needs a person (reconnect the
  // account): one is enough. Quota pauses end by themselves the next UTC day and do not alarm.
  accountPauses: 1,
  queueAgeMinutes: {},
};

/** The CDK context key of each threshold. */
export const ALARM_CONTEXT_KEYS: Record<keyof AlarmThresholds, string> = {
  lambdaErrors: 'alarmLambdaErrors',
  lambdaThrottles: 'alarmLambdaThrottles',
  api5xxPercent: 'alarmApi5xxPercent',
  api5xxMinRequests: 'alarmApi5xxMinRequests',
  apiP99LatencyMs: 'alarmApiP99LatencyMs',
  dynamoThrottledRequests: 'alarmDynamoThrottledRequests',
  dynamoSystemErrors: 'alarmDynamoSystemErrors',
  schedulerSilentMinutes: 'alarmSchedulerSilentMinutes',
  accountPauses: 'alarmAccountPauses',
  queueAgeMinutes: 'alarmQueueAgeMinutes',
};

export const DEFAULT_CONFIG: OutreachConfig = {
  stackName: 'OutreachService',
  stageName: 'v1',
  rateLimitPerMinute: settingDefault('rateLimitPerMinute'),
  rateLimitBurst: settingDefault('rateLimitBurst'),
  sessionUsageKeyCount: 8,
  sessionRateLimitPerSecond: SESSION_PLAN_DEFAULTS.rateLimitPerSecond,
  sessionBurstLimit: SESSION_PLAN_DEFAULTS.burstLimit,
  logRetention: RetentionDays.ONE_MONTH,
  tracing: true,
  providerBaseUrl: 'https://api1.unipile.com:13111',
  directoryBaseUrl: 'https://directory.invalid',
  searchQuotaPerMonth: settingDefault('searchQuotaPerMonth'),
  maxLeadsPerList: settingDefault('maxLeadsPerList'),
  edge: DEFAULT_EDGE_CONFIG,
  alarmEmail: undefined,
  alarmThresholds: DEFAULT_ALARM_THRESHOLDS,
  reservedConcurrency: {},
  localIndexProjection: LOCAL_INDEX_PROJECTION,
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

function optionalText(key: string, raw: unknown, pattern: RegExp): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  return text(key, raw, '', pattern);
}

function flag(key: string, raw: unknown, fallback: boolean): boolean {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`Invalid CDK context ${key}: expected true or false, got ${JSON.stringify(raw)}`);
}

/**
 * A map of names to positive numbers: an object in cdk.json, or its JSON on the command line
 * (`-c 'reservedConcurrency={"authorizer":50}'`).
 */
function numberMap(key: string, raw: unknown, names: RegExp, { integer }: { integer: boolean }): Record<string, number> {
  if (raw === undefined || raw === null || raw === '') return {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error(`Invalid CDK context ${key}: expected a JSON object, got ${JSON.stringify(raw)}`);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`Invalid CDK context ${key}: expected a JSON object, got ${JSON.stringify(raw)}`);
  }
  const entries = Object.entries(value as Record<string, unknown>).map(([name, entry]): [string, number] => {
    if (!names.test(name)) throw new Error(`Invalid CDK context ${key}: ${JSON.stringify(name)} does not match ${names}`);
    if (entry === undefined || entry === null || entry === '') throw new Error(`Invalid CDK context ${key}.${name}: no value`);
    return [name, positiveNumber(`${key}.${name}`, entry, 0, { integer })];
  });
  return Object.fromEntries(entries);
}

/** Thresholds: each context key, or its default. */
function alarmThresholds(get: (key: string) => unknown): AlarmThresholds {
  const scalar = (name: Exclude<keyof AlarmThresholds, 'queueAgeMinutes'>, integer: boolean) =>
    positiveNumber(ALARM_CONTEXT_KEYS[name], get(ALARM_CONTEXT_KEYS[name]), DEFAULT_ALARM_THRESHOLDS[name], { integer });
  return {
    lambdaErrors: scalar('lambdaErrors', true),
    lambdaThrottles: scalar('lambdaThrottles', true),
    api5xxPercent: scalar('api5xxPercent', false),
    api5xxMinRequests: scalar('api5xxMinRequests', true),
    apiP99LatencyMs: scalar('apiP99LatencyMs', true),
    dynamoThrottledRequests: scalar('dynamoThrottledRequests', true),
    dynamoSystemErrors: scalar('dynamoSystemErrors', true),
    schedulerSilentMinutes: scalar('schedulerSilentMinutes', true),
    accountPauses: scalar('accountPauses', true),
    queueAgeMinutes: numberMap(ALARM_CONTEXT_KEYS.queueAgeMinutes, get(ALARM_CONTEXT_KEYS.queueAgeMinutes), /^[a-z0-9-]+$/, { integer: true }),
  };
}

/** Keys of `reservedConcurrency`: the authorizer, or a function of an endpoint group, a queue or a schedule. */
export const RESERVED_CONCURRENCY_KEY = /^(authorizer|http:[A-Za-z0-9]+|queue:[a-z0-9-]+|schedule:[a-z0-9-]+)$/;

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
    // Deliberately loose (something@domain.tld): SNS sends a confirmation email to check the address.
    alarmEmail: optionalText('alarmEmail', get('alarmEmail'), /^[^@\s"]+@[^@\s"]+\.[^@\s"]+$/),
    alarmThresholds: alarmThresholds(get),
    reservedConcurrency: numberMap('reservedConcurrency', get('reservedConcurrency'), RESERVED_CONCURRENCY_KEY, { integer: true }),
    localIndexProjection: text('localIndexProjection', get('localIndexProjection'), DEFAULT_CONFIG.localIndexProjection, /^(KEYS_ONLY|ALL)$/) as LocalIndexProjection,
  };
}
