/**
 * Abuse protection at the edge (docs/operations.md, "Abuse protection"): the WAF web ACL's rate
 * limits and the stage's method throttles. Read from CDK context like the rest of the config;
 * each value's reason is beside it.
 */
export interface EdgeConfig {
  /**
   * Requests one IP address may make in 5 minutes to any route but the provider's webhooks (WAF,
   * 429 past it). 2,000 is eight API keys at their full 50 a minute from one server, with room for
   * a dashboard session: it stops floods (refused credentials are counted by no usage plan), not customers.
   */
  wafIpLimitPer5Minutes: number;
  /**
   * Requests one IP address may make in a minute to the anonymous routes (signup, login, the
   * unsubscribe link). 20 is far above what people do by hand, even an office behind one address;
   * the unsubscribe link's own per-IP limit (30 a minute) and the login throttle sit behind it.
   */
  wafAnonymousIpLimitPerMinute: number;
  /**
   * The stage's default throttle of each method, for all callers together (requests per second and
   * burst). 500 rps keeps one hot route to about 50 concurrent executions at a typical 100 ms, far
   * inside Lambda's default 1,000, and off the account's 10,000 rps shared with other APIs.
   */
  stageRateLimit: number;
  stageBurstLimit: number;
  /**
   * The anonymous routes' method throttle, for all callers together. 50 rps bounds what a
   * distributed flood of logins can cost (each one a 60 ms, 32 MiB password hash) while being
   * far above real sign-up, login and unsubscribe traffic.
   */
  anonymousRateLimit: number;
  anonymousBurstLimit: number;
}

export const DEFAULT_EDGE_CONFIG: EdgeConfig = {
  wafIpLimitPer5Minutes: 2000,
  wafAnonymousIpLimitPerMinute: 20,
  stageRateLimit: 500,
  stageBurstLimit: 1000,
  anonymousRateLimit: 50,
  anonymousBurstLimit: 100,
};

/** WAF refuses rate-based limits below 10; API Gateway burst limits are whole requests. */
const RULES: Record<keyof EdgeConfig, { integer: boolean; min: number }> = {
  wafIpLimitPer5Minutes: { integer: true, min: 10 },
  wafAnonymousIpLimitPerMinute: { integer: true, min: 10 },
  stageRateLimit: { integer: false, min: 0.01 },
  stageBurstLimit: { integer: true, min: 1 },
  anonymousRateLimit: { integer: false, min: 0.01 },
  anonymousBurstLimit: { integer: true, min: 1 },
};

/** The edge settings from CDK context (`-c key=value` arrives as text); unset keys take the defaults. */
export function loadEdgeConfig(get: (key: string) => unknown): EdgeConfig {
  const config = { ...DEFAULT_EDGE_CONFIG };
  for (const key of Object.keys(RULES) as (keyof EdgeConfig)[]) {
    const raw = get(key);
    if (raw === undefined || raw === null || raw === '') continue;
    const value = typeof raw === 'number' ? raw : Number(raw);
    const { integer, min } = RULES[key];
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new Error(`Invalid CDK context ${key}: expected ${integer ? 'an integer' : 'a number'} of at least ${min}, got ${JSON.stringify(raw)}`);
    }
    config[key] = value;
  }
  return config;
}
