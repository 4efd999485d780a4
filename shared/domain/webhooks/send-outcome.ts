/**
 * How one POST to a user's URL ended, as the WebhookSender port reports it (see ports.ts) and the
 * delivery rules read it (describeOutcome in delivery.ts). Its own module so that neither of those
 * two has to import the other.
 */
export type SendOutcome =
  /** `retryAfter`: the answer's `Retry-After` header as sent (seconds or an HTTP date), if any. */
  | { kind: 'response'; status: number; reason: string; retryAfter?: string }
  | { kind: 'timeout' }
  /** The destination is not a public address (SSRF guard); nothing was sent. */
  | { kind: 'blocked'; reason: string }
  | { kind: 'network'; reason: string };
