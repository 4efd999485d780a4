import { ENRICHMENT_PROVIDER_SETTINGS, PROVIDER_SETTINGS, QUEUE_SETTINGS, type SettingName, TABLE_SETTINGS, WEBHOOK_SETTINGS } from '../config/settings';
import { RETRY_DELAYS_SECONDS, maxAttemptsFor } from '../domain/webhooks/delivery';

/**
 * Queues and scheduled jobs, defined once: the CDK stack creates them (with their dead-letter
 * queues and consumers) and the local runtime creates them in the SQS emulator, polls them and
 * runs the schedules on a timer. Later capabilities add their entries here.
 */
export interface QueueDefinition {
  /** Logical name; the local queue is named `<name>` and its dead-letter queue `<name>-dlq`. */
  readonly name: string;
  /** Entry file of the consumer Lambda, relative to the repo root. */
  readonly consumerEntry: string;
  /** The setting through which producers learn the queue URL. */
  readonly urlSetting: SettingName;
  /** The settings the consumer reads. */
  readonly settings: readonly SettingName[];
  readonly batchSize: number;
  /** Receives before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
  readonly visibilityTimeoutSeconds: number;
  /**
   * AWS only: most concurrent consumer invocations the queue's event source starts (SQS allows
   * 2..1000), to protect what the consumer calls (the provider, DynamoDB hot keys) and the account's
   * Lambda concurrency, which the API shares. Each entry says why its number (docs/operations.md).
   */
  readonly maxConcurrency: number;
  /**
   * AWS only: minutes the queue's oldest message may wait before its age alarm fires (the
   * `alarmQueueAgeMinutes` context key overrides it per queue). Each entry says why its number.
   */
  readonly oldestMessageAlarmMinutes: number;
  /**
   * The consumer sends messages to its own queue (the next page of a sweep), so its role may
   * `sqs:SendMessage` there. Without it, a consumer that reads its own URL only delays
   * redeliveries (ChangeMessageVisibility, which its event source grants).
   */
  readonly sendsToItself?: true;
}

export interface ScheduleDefinition {
  readonly name: string;
  readonly entry: string;
  readonly settings: readonly SettingName[];
  /** How often the job runs. */
  readonly everyMinutes: number;
  /** How often the local runtime's timer runs it (defaults to everyMinutes). */
  readonly localEveryMs?: number;
}

/**
 * User webhook deliveries (functions/queues/webhook-delivery): the worker waits between attempts
 * by setting a message's visibility, so the queue sees every attempt as a receive.
 */
export const WEBHOOK_DELIVERY = {
  name: 'webhooks',
  consumerEntry: 'functions/queues/webhook-delivery/lambda.ts',
  urlSetting: 'webhooksQueueUrl',
  settings: [...TABLE_SETTINGS, ...WEBHOOK_SETTINGS, ...QUEUE_SETTINGS],
  batchSize: 10,
  // Every attempt of the retry schedule, plus slack for a duplicate receive now and then.
  maxReceiveCount: maxAttemptsFor(RETRY_DELAYS_SECONDS) + 2,
  // 6x the consumer's 30 s timeout (attempts of one batch run in parallel, 10 s each at most).
  visibilityTimeoutSeconds: 180,
  // A batch POSTs its 10 records in parallel (10 s each at most): 10 batches are at most 100
  // deliveries in flight. A burst of events to slow receivers then waits in the queue instead of
  // taking a large share of the account's Lambda concurrency, which the API needs.
  maxConcurrency: 10,
  // A message waits between attempts by its visibility (1 min, then 5 min, ...). SQS leaves a
  // message received 3 times out of the age metric, so only the first three attempts count: about
  // 7 minutes with jitter. Half an hour means deliveries are not being picked up.
  oldestMessageAlarmMinutes: 30,
} as const satisfies QueueDefinition;

/**
 * Scheduling a campaign's waiting prospects when it becomes ACTIVE
 * (functions/queues/campaign-scheduling): one page per message, the consumer sending the next.
 */
export const CAMPAIGN_SCHEDULING = {
  name: 'campaign-scheduling',
  consumerEntry: 'functions/queues/campaign-scheduling/lambda.ts',
  urlSetting: 'campaignSchedulingQueueUrl',
  settings: [...TABLE_SETTINGS, 'sqsEndpoint', 'campaignSchedulingQueueUrl'],
  batchSize: 1,
  // A page is a few hundred conditional writes; five failures in a row is a real fault (DLQ alarm).
  maxReceiveCount: 5,
  // 6x the consumer's 30 s timeout.
  visibilityTimeoutSeconds: 180,
  // A page is 200 conditional writes at once, into the campaign's partition and the 16 shards of
  // the due-time index: 5 pages (1,000 writes in flight) when many campaigns start together keep
  // the table's on-demand headroom for the API (a new on-demand table serves ~4,000 writes/s).
  maxConcurrency: 5,
  // A page takes seconds and each campaign's pages run one after the other: 15 minutes of waiting
  // means a campaign that was started is not being scheduled.
  oldestMessageAlarmMinutes: 15,
  // Each page sends the next one (a sweep, a retime, a repace of more than a page). The stack lets
  // Lambda run this loop past its recursion detection's 16 invocations (infra/stacks/outreach-stack.ts).
  sendsToItself: true,
} as const satisfies QueueDefinition;

/**
 * Due campaign actions (functions/queues/outreach): the scheduler sends them ACTIONS_PER_MESSAGE
 * to a message; the sender carries each out exactly once (a claim before the provider call). Waits
 * the engine owns (delays, backoff, caps) are due times in DynamoDB, never visibility timeouts.
 */
export const OUTREACH = {
  name: 'outreach',
  consumerEntry: 'functions/queues/outreach/lambda.ts',
  urlSetting: 'outreachQueueUrl',
  // publicApiUrl and unsubscribeSecret: the unsubscribe link of an email step with add_unsubscribe; mxResolverUrl and dnsTimeoutMs: HAS_EMAIL_PREMIUM.
  settings: [...TABLE_SETTINGS, ...PROVIDER_SETTINGS, 'maxLeadsPerList', 'publicApiUrl', 'unsubscribeSecret', 'mxResolverUrl', 'dnsTimeoutMs'],
  batchSize: 5,
  // A message fails only on a storage error (provider failures are due times); a few tries, then the DLQ alarm.
  maxReceiveCount: 5,
  // 6x the consumer's 120 s timeout.
  visibilityTimeoutSeconds: 720,
  // A batch carries out up to 50 actions, 8 at a time: 5 batches are at most 40 provider calls in
  // flight, and concurrent senders queue on each lead list's digest item (a hot key, docs/engine.md
  // "Costs"). Daily caps keep the volume low: 5 clear a burst of 10,000 due actions in minutes.
  maxConcurrency: 5,
  // The scheduler sends due actions every minute and the sender takes seconds; one redelivery after
  // a timed-out sender (the 12-minute visibility) stays under 15 minutes, two do not.
  oldestMessageAlarmMinutes: 15,
} as const satisfies QueueDefinition;

/**
 * Enrichment chunks (functions/queues/enrichment): one chunk of a job (ENRICHMENT_LIMITS.chunkSize
 * prospects) per message; a batch's results, counts and refunds are written once. Messages lost
 * with the queue are found again by the enrichment sweeper from the job's items.
 */
export const ENRICHMENT = {
  name: 'enrichment',
  consumerEntry: 'functions/queues/enrichment/lambda.ts',
  urlSetting: 'enrichmentQueueUrl',
  settings: [...TABLE_SETTINGS, ...ENRICHMENT_PROVIDER_SETTINGS, ...QUEUE_SETTINGS, 'maxLeadsPerList'],
  batchSize: 10,
  // Provider failures are results (refunded), not retries: a message fails only on a storage error.
  maxReceiveCount: 5,
  // 6x the consumer's 120 s timeout.
  visibilityTimeoutSeconds: 720,
  // The minimum SQS allows. A batch holds 32 calls in flight to one enrichment provider (rate-limited
  // APIs: a 429 is tried again, then refunded as failed), and the chunks of a job all write the job's
  // item (a hot key whose transactions conflict): 2 batches at a time are at most 64 calls.
  maxConcurrency: 2,
  // A 10,000-prospect job is 200 chunks, 20 batches: at 2 batches at a time about 10-20 minutes,
  // and several large jobs queue behind each other. An hour of 'Loading…' is a stuck worker.
  oldestMessageAlarmMinutes: 60,
} as const satisfies QueueDefinition;

/**
 * Provider webhook events whose handling failed in the webhook's function (the table failing, say)
 * (functions/queues/inbound-retry): the function answers the provider 200 once the event is here,
 * and the consumer runs it again until it goes through, so a reply outlives an outage longer than
 * the provider's own retries (about a minute). Handling an event twice changes nothing twice.
 */
export const INBOUND_RETRY = {
  name: 'inbound-retry',
  consumerEntry: 'functions/queues/inbound-retry/lambda.ts',
  urlSetting: 'inboundRetryQueueUrl',
  settings: [...TABLE_SETTINGS, ...PROVIDER_SETTINGS, ...QUEUE_SETTINGS, 'providerWebhookSecret', 'publicApiUrl', 'maxLeadsPerList'],
  batchSize: 5,
  // A receive every 5 minutes (the visibility timeout) for an hour: an outage of the table that
  // outlasts that is one for the dead-letter queue and its alarm (the events are kept there).
  maxReceiveCount: 12,
  // 6x the consumer's 50 s timeout: the next try of a failed event comes 5 minutes later.
  visibilityTimeoutSeconds: 300,
  // The minimum SQS allows: events only land here when the webhook's function failed.
  maxConcurrency: 2,
  // An event waits 5 minutes between tries: an hour of waiting means it keeps failing.
  oldestMessageAlarmMinutes: 60,
} as const satisfies QueueDefinition;

/** A consumer's timeout: its queue's visibility timeout is 6 times it (AWS's advice), so at most a sixth of it. */
export const consumerTimeoutSeconds = (definition: QueueDefinition): number => Math.max(1, Math.floor(definition.visibilityTimeoutSeconds / 6));

export const QUEUES: readonly QueueDefinition[] = [WEBHOOK_DELIVERY, CAMPAIGN_SCHEDULING, OUTREACH, ENRICHMENT, INBOUND_RETRY];

/**
 * The outreach scheduler (functions/schedules/outreach-scheduler): every minute in AWS, every
 * few seconds in the local runtime (and at once when the local clock is moved).
 */
export const OUTREACH_SCHEDULER = {
  name: 'outreach-scheduler',
  entry: 'functions/schedules/outreach-scheduler/lambda.ts',
  settings: [...TABLE_SETTINGS, 'sqsEndpoint', 'outreachQueueUrl'],
  everyMinutes: 1,
  localEveryMs: 5_000,
} as const satisfies ScheduleDefinition;

/**
 * The enrichment sweeper (functions/schedules/enrichment-sweeper): resumes jobs without progress
 * for longer than a message can take (lost messages, a crash between the debit and the chunks).
 */
export const ENRICHMENT_SWEEPER = {
  name: 'enrichment-sweeper',
  entry: 'functions/schedules/enrichment-sweeper/lambda.ts',
  settings: [...TABLE_SETTINGS, ...QUEUE_SETTINGS, 'enrichmentQueueUrl'],
  everyMinutes: 5,
  localEveryMs: 30_000,
} as const satisfies ScheduleDefinition;

export const SCHEDULES: readonly ScheduleDefinition[] = [OUTREACH_SCHEDULER, ENRICHMENT_SWEEPER];
