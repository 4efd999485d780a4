import * as v from 'valibot';

/**
 * Settings every function shares. Required values have no defaults on purpose: a missing
 * variable fails the first cold start with a readable message instead of running half-configured.
 */
export const BaseEnv = v.object({
  TABLE_NAME: v.pipe(v.string(), v.minLength(1)),
  /** Only set locally and in tests: DynamoDB Local's URL. Never set in AWS. */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  /** `local` for `npm start` and the tests, `aws` when deployed. Decides loopback allowances. */
  RUNTIME: v.picklist(['aws', 'local']),
});

export const SessionEnv = v.object({
  ...BaseEnv.entries,
  /** HMAC key for session JWTs: at least 32 characters. */
  SESSION_SECRET: v.pipe(v.string(), v.minLength(32)),
  /** Days a session stays valid. */
  SESSION_TTL_DAYS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1)), '7'),
});

/**
 * Parses `process.env` (or a given record) against a schema, once, at module scope of a handler.
 * Throws one line naming every missing or invalid variable.
 */
export function loadEnv<TSchema extends v.GenericSchema<Record<string, unknown>, Record<string, unknown>>>(
  schema: TSchema,
  source: Record<string, string | undefined> = process.env,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, source);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '?'}: ${issue.message}`);
    throw new Error(`Invalid environment: ${problems.join('; ')}`);
  }
  return result.output;
}
