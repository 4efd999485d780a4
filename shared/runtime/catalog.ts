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

export const QUEUES: readonly QueueDefinition[] = [];

export const SCHEDULES: readonly ScheduleDefinition[] = [];
