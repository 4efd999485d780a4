import { type SecretCache, type SecretSettingName, createSecretCache, isSecretSetting, secretArnVariable, secretsManagerFetcher } from '../config/secrets';
import { SETTINGS, type SettingName, type SettingsOf, readSettings } from '../config/settings';
import { type FunctionDeps, loggerFor } from './function-deps';

type Environment = Readonly<Record<string, string | undefined>>;
/** A Lambda handler: it takes whatever its event source sends. */
type AnyHandler = (...args: any[]) => Promise<unknown>;

export interface LambdaEntryOptions {
  /** Where secret values come from; Secrets Manager with a five-minute cache unless given (tests). */
  secrets?: SecretCache;
}

/**
 * What every Lambda entry exports: the function's builder, given its declared settings parsed from
 * the environment once per cold start.
 *
 * A secret setting whose `<VARIABLE>_ARN` is set (the stack sets exactly that, never the value) is
 * read at runtime: on the first invocation, then again once the cached value is older than
 * SECRET_MAX_AGE_MS. When a value changes, the handler is built again with it, so the builders
 * and everything below them keep taking plain values (as in the local runtime) and a put secret is
 * live within the cache time without a deploy. A function with no such setting is its builder's
 * handler itself, with nothing in between.
 */
export function lambdaEntry<const Names extends readonly SettingName[], H extends AnyHandler>(
  build: (config: SettingsOf<Names>, deps: FunctionDeps) => H,
  names: Names,
  environment: Environment,
  deps: FunctionDeps,
  options: LambdaEntryOptions = {},
): H {
  const fromSecretsManager = names.filter((name): name is SecretSettingName & Names[number] => isSecretSetting(name) && !!environment[secretArnVariable(name)]);
  const plain = readSettings(
    names.filter((name) => !(fromSecretsManager as readonly SettingName[]).includes(name)),
    environment,
  );
  if (fromSecretsManager.length === 0) return build(plain as SettingsOf<Names>, deps);

  const logger = loggerFor('secrets', deps);
  const ids = fromSecretsManager.map((name) => environment[secretArnVariable(name)] as string);
  const secrets =
    options.secrets ??
    createSecretCache({
      fetch: secretsManagerFetcher(),
      clock: deps.clock,
      onStale: (secretId, error) => logger.warn('Secret not refreshed; using the value already read', { secretId, error: String(error) }),
    });

  let built: { values: readonly string[]; handler: H } | undefined;
  async function current(): Promise<H> {
    const values = await Promise.all(ids.map((id) => secrets.get(id)));
    if (built && values.every((value, index) => value === built?.values[index])) return built.handler;
    const parsed = parseSecrets(fromSecretsManager, values);
    built = { values, handler: build({ ...plain, ...parsed } as SettingsOf<Names>, deps) };
    return built.handler;
  }
  // Started while the function initialises, so the first invocation finds the read under way or done.
  current().catch(() => {});
  return (async (...args: Parameters<H>) => (await current())(...args)) as H;
}

/** Secret values checked like any setting (a placeholder too short for a key fails readably), never quoted. */
function parseSecrets<const Names extends readonly SecretSettingName[]>(names: Names, values: readonly string[]): SettingsOf<Names> {
  try {
    return readSettings(names, Object.fromEntries(names.map((name, index) => [SETTINGS[name].env, values[index]])));
  } catch (error) {
    throw new Error(String((error as Error).message).replace(/^Invalid environment: /, 'Invalid secret value: '));
  }
}
