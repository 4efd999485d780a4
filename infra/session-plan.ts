/**
 * The sessions usage plan's defaults (each pool key of dashboard sessions; CDK context
 * `sessionRateLimitPerSecond` / `sessionBurstLimit`), in a module of their own so that the local
 * runtime's buckets take the same figures without loading the CDK.
 */
export const SESSION_PLAN_DEFAULTS = {
  /** Steady requests per second of each session usage key. */
  rateLimitPerSecond: 10,
  /** Tokens each session usage key's bucket holds. */
  burstLimit: 100,
} as const;
