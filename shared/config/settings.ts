import * as v from 'valibot';
import { RETRY_DELAYS_SECONDS, parseSchedule } from '../domain/webhooks/delivery';
import { MIN_KEY_MATERIAL_LENGTH } from '../security/secret-box';

/**
 * Every setting of the service, declared once: its type (a schema from the environment text),
 * its default, and what it means. The Lambda entries parse their environment from these
 * declarations (`readSettings`), the CDK stack writes function environments from them
 * (`toEnvironment`) and takes its own defaults from them, and the local runtime builds plain
 * config objects from their defaults (`settingDefaults`). Which function reads which setting is
 * declared beside the function (the route table's groups, the queue catalog, the authorizer).
 */
export interface SettingDefinition<T> {
  /** The environment variable a Lambda function reads it from. */
  readonly env: string;
  /** Parses the variable's text into the setting's value. */
  readonly schema: v.GenericSchema<string, T>;
  /** The value when the variable is unset or empty; `required` settings have none. */
  readonly default?: T;
  readonly required?: true;
  /** Writes a value back as environment text (CDK); `String(value)` unless given. */
  readonly format?: (value: T) => string;
  /** A secret: never logged, never in a template as plain text (CDK passes a secret reference). */
  readonly secret?: true;
  readonly meaning: string;
}

const define = <T>(definition: SettingDefinition<T>): SettingDefinition<T> => definition;

const text = (minLength = 1) => v.pipe(v.string(), v.minLength(minLength, `must be at least ${minLength} characters`));
const url = () => v.pipe(v.string(), v.url('must be a URL'));
const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,15}$/, 'must be an integer'),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
const flag = () =>
  v.pipe(
    v.picklist(['0', '1', 'true', 'false'], 'must be 1 or 0'),
    v.transform((value) => value === '1' || value === 'true'),
  );
const flagText = (value: boolean) => (value ? '1' : '0');

export const SETTINGS = {
  // The table and the AWS runtime.
  tableName: define({ env: 'TABLE_NAME', schema: text(), required: true, meaning: 'The single DynamoDB table.' }),
  dynamodbEndpoint: define<string | undefined>({
    env: 'DYNAMODB_ENDPOINT',
    schema: url(),
    default: undefined,
    meaning: "DynamoDB Local's URL. Only the local runtime and the tests set it; never set in AWS.",
  }),
  trackCapacity: define({
    env: 'DYNAMODB_TRACK_CAPACITY',
    schema: flag(),
    default: false,
    format: flagText,
    meaning: 'Report DynamoDB consumed capacity into the process-wide meter (benchmarks).',
  }),
  runtime: define({
    env: 'RUNTIME',
    schema: v.picklist(['aws', 'local'], 'must be aws or local'),
    required: true,
    meaning: '`aws` when deployed, `local` for `npm start` and the tests; decides Secure cookies and loopback allowances.',
  }),
  awsRegion: define({ env: 'AWS_REGION', schema: text(), default: 'us-east-1', meaning: 'The AWS region (Lambda sets it).' }),

  // Sessions and API keys.
  sessionSecret: define({ env: 'SESSION_SECRET', schema: text(32), required: true, secret: true, meaning: 'HMAC key of session JWTs.' }),
  sessionTtlDays: define({ env: 'SESSION_TTL_DAYS', schema: integer(1, 365), default: 7, meaning: 'Days a session stays valid.' }),
  sessionUsageKeys: define<readonly string[]>({
    env: 'SESSION_USAGE_KEYS',
    schema: v.pipe(
      v.string(),
      v.transform((value) => value.split(',').filter(Boolean)),
    ),
    default: [],
    format: (value) => value.join(','),
    meaning: 'Usage identifiers of the session pool, comma separated (see docs/rate-limits.md).',
  }),
  usagePlanId: define<string | undefined>({
    env: 'USAGE_PLAN_ID',
    schema: text(),
    default: undefined,
    meaning: 'The usage plan new API keys join (AWS only; required there).',
  }),
  maxActiveKeysPerUser: define({ env: 'MAX_ACTIVE_KEYS_PER_USER', schema: integer(1, 1000), default: 25, meaning: 'Active API keys one user may hold.' }),
  rateLimitPerMinute: define({
    env: 'RATE_LIMIT_PER_MINUTE',
    schema: integer(1, 100_000),
    default: 50,
    meaning: "Requests per minute per API key, sustained: the usage plan's rate (per minute / 60 per second) in AWS, the refill of the local gateway's token bucket.",
  }),
  rateLimitBurst: define({
    env: 'RATE_LIMIT_BURST',
    schema: integer(1, 100_000),
    default: 10,
    meaning:
      "Requests one API key may make at once: the usage plan's burst in AWS, the size of the local gateway's token bucket. A bucket lets burst + per-minute requests through in any 60 s, so 10 keeps a key's first minute at 60, near its 50 a minute.",
  }),

  // Login throttling (docs/rate-limits.md, "Login").
  loginFailuresBeforeDelay: define({
    env: 'LOGIN_FAILURES_BEFORE_DELAY',
    schema: integer(1, 100),
    default: 5,
    meaning: 'Failed logins of one (email, IP address) pair before each further attempt waits 2^(failures - this) seconds: room for a few typos.',
  }),
  loginMaxDelaySeconds: define({
    env: 'LOGIN_MAX_DELAY_SECONDS',
    schema: integer(1, 86_400),
    default: 900,
    meaning: "The longest wait of one (email, IP address) pair: 15 minutes, reached after 15 failures, holds a guesser to ~100 tries a day while the owner's own login from another address is never slowed.",
  }),
  loginFailuresPerIpPerHour: define({
    env: 'LOGIN_FAILURES_PER_IP_PER_HOUR',
    schema: integer(1, 1_000_000),
    default: 100,
    meaning: 'Failed logins one IP address may make in a clock hour, whatever the emails: stops one address from spraying passwords over many accounts, far above what an office behind one address mistypes.',
  }),

  // Lead lists and prospect search.
  maxLeadsPerList: define({ env: 'MAX_LEADS_PER_LIST', schema: integer(1, 1_000_000), default: 100_000, meaning: 'Leads one lead list may hold.' }),
  searchQuotaPerMonth: define({
    env: 'SEARCH_QUOTA_PER_MONTH',
    schema: integer(1),
    default: 1000,
    meaning: 'Directory searches per workspace per calendar month (UTC).',
  }),
  directoryBaseUrl: define({
    env: 'DIRECTORY_BASE_URL',
    schema: url(),
    required: true,
    meaning: "The B2B directory's API behind prospect search (locally: the sandbox directory).",
  }),
  directoryApiKey: define({ env: 'DIRECTORY_API_KEY', schema: text(), required: true, secret: true, meaning: "The directory's API key." }),

  // The network/email provider.
  providerBaseUrl: define({ env: 'PROVIDER_BASE_URL', schema: url(), required: true, meaning: "The provider's base URL (its DSN)." }),
  providerAccessToken: define({ env: 'PROVIDER_ACCESS_TOKEN', schema: text(), required: true, secret: true, meaning: 'The provider access token.' }),
  providerTimeoutMs: define({
    env: 'PROVIDER_TIMEOUT_MS',
    // At most 10 s: a connection check must answer inside its 12 s function, and the sender starts
    // an action only with two such calls and 6 s left of its 120 s (docs/engine.md).
    schema: integer(100, 10_000),
    default: 8000,
    meaning: 'Bound on each provider call: 8 s keeps a connection check inside the 12 s function timeout.',
  }),
  providerWebhookSecret: define({
    env: 'PROVIDER_WEBHOOK_SECRET',
    schema: text(32),
    required: true,
    secret: true,
    meaning: 'Shared secret the provider sends in X-Webhook-Secret; also keys the hosted-connect state.',
  }),
  publicApiUrl: define<string | undefined>({
    env: 'PUBLIC_API_URL',
    schema: url(),
    default: undefined,
    meaning:
      "This API's public base URL (https when deployed): handed to the provider for callbacks, and the base of the unsubscribe links in emails. Unset: no hosted-connect notification; the outreach consumer requires it.",
  }),

  // Unsubscribe links.
  unsubscribeSecret: define({
    env: 'UNSUBSCRIBE_SECRET',
    schema: text(32),
    required: true,
    secret: true,
    meaning: 'HMAC key of the tokens in unsubscribe links. Rotating it breaks the links of emails already sent.',
  }),
  unsubscribeRateLimitPerMinute: define({
    env: 'UNSUBSCRIBE_RATE_LIMIT_PER_MINUTE',
    schema: integer(1, 10_000),
    default: 30,
    meaning: 'Requests per minute one IP address may make to the public unsubscribe link (a 429 beyond).',
  }),

  // Mail domains (the HAS_EMAIL_PREMIUM condition).
  mxResolverUrl: define<string | undefined>({
    env: 'MX_RESOLVER_URL',
    schema: url(),
    default: undefined,
    meaning: 'Base URL of the sandbox DNS resolver (local runtime only); unset: MX records come from real DNS.',
  }),
  dnsTimeoutMs: define({
    env: 'DNS_TIMEOUT_MS',
    schema: integer(100, 10_000),
    default: 2_000,
    meaning: 'Bound on each MX lookup; an answer is then cached for an hour per container.',
  }),

  // Users' webhooks.
  webhookSecretKey: define({
    env: 'WEBHOOK_SECRET_KEY',
    schema: text(MIN_KEY_MATERIAL_LENGTH),
    required: true,
    secret: true,
    meaning: "Key material sealing users' webhook signing secrets in the table.",
  }),
  webhookAllowLoopback: define({
    env: 'WEBHOOK_ALLOW_LOOPBACK',
    schema: flag(),
    default: false,
    format: flagText,
    meaning: 'Lets webhooks point at this machine. Local runtime only: with RUNTIME=aws it fails the cold start.',
  }),
  webhookTimeoutMs: define({
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: integer(100, 60_000),
    default: 10_000,
    meaning: 'Bound on one webhook request (test send and each delivery attempt).',
  }),
  webhookRetrySchedule: define<readonly number[]>({
    env: 'WEBHOOK_RETRY_SCHEDULE',
    schema: v.pipe(
      v.string(),
      v.transform(parseSchedule),
      v.check((value) => value !== undefined, 'must be comma-separated seconds, each at most 43200'),
      v.transform((value) => value as number[]),
    ),
    default: RETRY_DELAYS_SECONDS,
    format: (value) => value.join(','),
    meaning: 'Seconds between webhook delivery attempts (docs/integrations.md).',
  }),

  // Queues.
  sqsEndpoint: define<string | undefined>({
    env: 'SQS_ENDPOINT',
    schema: url(),
    default: undefined,
    meaning: "The SQS emulator's URL. Only the local runtime and the tests set it.",
  }),
  webhooksQueueUrl: define({ env: 'WEBHOOKS_QUEUE_URL', schema: text(), required: true, meaning: 'URL of the webhooks queue.' }),
  inboundRetryQueueUrl: define({
    env: 'INBOUND_RETRY_QUEUE_URL',
    schema: text(),
    required: true,
    meaning: 'URL of the inbound-retry queue (provider webhook events whose handling failed, run again from it).',
  }),
  campaignSchedulingQueueUrl: define({
    env: 'CAMPAIGN_SCHEDULING_QUEUE_URL',
    schema: text(),
    required: true,
    meaning: 'URL of the campaign-scheduling queue (schedules the prospects a campaign held back when it becomes ACTIVE).',
  }),
  outreachQueueUrl: define({
    env: 'OUTREACH_QUEUE_URL',
    schema: text(),
    required: true,
    meaning: 'URL of the outreach queue: due campaign actions, sent by the scheduler to the sender.',
  }),
  enrichmentQueueUrl: define({
    env: 'ENRICHMENT_QUEUE_URL',
    schema: text(),
    required: true,
    meaning: 'URL of the enrichment queue: chunks of enrichment jobs, worked by the enrichment worker.',
  }),

  // Enrichment providers (docs/enrichment.md).
  enrichmentEmailFinders: define<readonly string[]>({
    env: 'ENRICHMENT_EMAIL_FINDERS',
    schema: v.pipe(
      v.string(),
      v.transform((value) => value.split(',').map((name) => name.trim()).filter(Boolean)),
      v.check((names) => names.length > 0 && names.every((name) => name === 'hunter' || name === 'prospeo'), 'must list hunter and/or prospeo'),
    ),
    default: ['hunter', 'prospeo'],
    format: (value) => value.join(','),
    meaning: 'Email finders in waterfall order; FIND_EMAIL uses the first.',
  }),
  hunterBaseUrl: define({ env: 'HUNTER_BASE_URL', schema: url(), default: 'https://api.hunter.io', meaning: "Hunter's API base URL." }),
  hunterApiKey: define({ env: 'HUNTER_API_KEY', schema: text(), required: true, secret: true, meaning: 'Hunter API key.' }),
  prospeoBaseUrl: define({ env: 'PROSPEO_BASE_URL', schema: url(), default: 'https://api.prospeo.io', meaning: "Prospeo's API base URL." }),
  prospeoApiKey: define({ env: 'PROSPEO_API_KEY', schema: text(), required: true, secret: true, meaning: 'Prospeo API key.' }),
  lushaBaseUrl: define({ env: 'LUSHA_BASE_URL', schema: url(), default: 'https://api.lusha.com', meaning: "Lusha's API base URL (the phone finder)." }),
  lushaApiKey: define({ env: 'LUSHA_API_KEY', schema: text(), required: true, secret: true, meaning: 'Lusha API key.' }),
  enrichmentTimeoutMs: define({
    env: 'ENRICHMENT_TIMEOUT_MS',
    // At most 20 s: a sync start (a 28 s function) asks a provider only with a call's timeout and 6 s left.
    schema: integer(100, 20_000),
    default: 8_000,
    meaning: 'Bound on one enrichment provider call.',
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<K extends SettingName> = (typeof SETTINGS)[K] extends SettingDefinition<infer T> ? T : never;
/** The config object of a function that reads the settings `Names`. */
export type SettingsOf<Names extends readonly SettingName[]> = { readonly [K in Names[number]]: SettingValue<K> };
export type AllSettings = SettingsOf<SettingName[]>;

const definitionOf = (name: SettingName): SettingDefinition<unknown> => SETTINGS[name] as SettingDefinition<unknown>;

/**
 * Reads the named settings from an environment (a Lambda entry passes `process.env`), once per
 * cold start. Throws one line naming every missing or invalid variable, so a misconfigured
 * function fails its first invocation readably instead of running half-configured.
 */
export function readSettings<const Names extends readonly SettingName[]>(
  names: Names,
  environment: Readonly<Record<string, string | undefined>>,
): SettingsOf<Names> {
  const values: Record<string, unknown> = Object.create(null);
  const problems: string[] = [];
  for (const name of names) {
    const definition = definitionOf(name);
    const raw = environment[definition.env];
    if (raw === undefined || raw === '') {
      if (definition.required) problems.push(`${definition.env}: is required`);
      else values[name] = definition.default;
      continue;
    }
    const parsed = v.safeParse(definition.schema, raw);
    if (parsed.success) values[name] = parsed.output;
    else problems.push(`${definition.env}: ${parsed.issues[0]?.message ?? 'is invalid'}`);
  }
  if (problems.length > 0) throw new Error(`Invalid environment: ${problems.join('; ')}`);
  return values as SettingsOf<Names>;
}

/**
 * The config object of the named settings from given values and the declared defaults (the local
 * runtime and the tests). A required setting without a value throws, as it would in Lambda.
 */
export function settingsFrom<const Names extends readonly SettingName[]>(names: Names, given: Partial<AllSettings>): SettingsOf<Names> {
  const values: Record<string, unknown> = Object.create(null);
  const missing: string[] = [];
  for (const name of names) {
    const definition = definitionOf(name);
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value !== undefined) values[name] = value;
    else if (definition.required) missing.push(name);
    else values[name] = definition.default;
  }
  if (missing.length > 0) throw new Error(`Missing settings: ${missing.join(', ')}`);
  return values as SettingsOf<Names>;
}

/** The declared default of a setting (the CDK stack's defaults come from here). */
export function settingDefault<K extends SettingName>(name: K): SettingValue<K> {
  return definitionOf(name).default as SettingValue<K>;
}

/**
 * The environment variables that carry the given values to a function (CDK). Values left out or
 * undefined are not written, so the function falls back to the declared default.
 */
export function toEnvironment(names: readonly SettingName[], values: Partial<Record<SettingName, unknown>>): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of names) {
    const value = values[name];
    if (value === undefined) continue;
    const definition = definitionOf(name);
    // CDK tokens (table names, secret references) are strings already and must pass untouched.
    environment[definition.env] = typeof value === 'string' ? value : (definition.format ?? String)(value);
  }
  return environment;
}

/** Setting groups that several functions read together. */
export const TABLE_SETTINGS = ['tableName', 'dynamodbEndpoint', 'trackCapacity', 'runtime', 'awsRegion'] as const;
export const PROVIDER_SETTINGS = ['providerBaseUrl', 'providerAccessToken', 'providerTimeoutMs'] as const;
export const WEBHOOK_SETTINGS = ['webhookSecretKey', 'webhookAllowLoopback', 'webhookTimeoutMs', 'webhookRetrySchedule'] as const;
export const QUEUE_SETTINGS = ['sqsEndpoint', 'webhooksQueueUrl'] as const;
export const ENRICHMENT_PROVIDER_SETTINGS = [
  'enrichmentEmailFinders',
  'hunterBaseUrl',
  'hunterApiKey',
  'prospeoBaseUrl',
  'prospeoApiKey',
  'lushaBaseUrl',
  'lushaApiKey',
  'enrichmentTimeoutMs',
] as const;
