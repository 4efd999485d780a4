import { RETRY_DELAYS_SECONDS, maxAttemptsFor } from '../domain/webhooks/delivery';

/**
 * Queues and scheduled jobs, defined once: the CDK stack creates them (with their dead-letter
 * queues and consumers) and the local runtime creates them in the SQS emulator, polls them and
 * runs the schedules on a timer. Later capabilities add their entries here.
 */
export interface QueueDefinition {
  /** Logical name; the local queue is named `<name>` and its dead-letter queue `<name>-dlq`. */
  name: string;
  /** Entry file of the consumer Lambda, relative to the repo root. */
  consumerEntry: string;
  /** Env var through which producers learn the queue URL. */
  urlEnv: string;
  batchSize: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  visibilityTimeoutSeconds: number;
}

export interface ScheduleDefinition {
  name: string;
  entry: string;
  /** How often the job runs. */
  everyMinutes: number;
}

export const QUEUES: readonly QueueDefinition[] = [
  {
    // User webhook deliveries (functions/queues/webhook-delivery): the worker waits between
    // attempts by setting a message's visibility, so the queue sees every attempt as a receive.
    name: 'webhooks',
    consumerEntry: 'functions/queues/webhook-delivery/handler.ts',
    urlEnv: 'WEBHOOKS_QUEUE_URL',
    batchSize: 10,
    // Every attempt of the retry schedule, plus slack for a duplicate receive now and then.
    maxReceiveCount: maxAttemptsFor(RETRY_DELAYS_SECONDS) + 2,
    // 6x the consumer's 30 s timeout (attempts of one batch run in parallel, 10 s each at most).
    visibilityTimeoutSeconds: 180,
  },
];

export const SCHEDULES: readonly ScheduleDefinition[] = [];
