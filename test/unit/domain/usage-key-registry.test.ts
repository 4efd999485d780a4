import { describe, expect, it } from 'vitest';
import {
  API_KEYS_TIMEOUT_SECONDS,
  KEY_CALL_RETRY,
  KEY_CALLS_PER_REQUEST,
  KEY_REQUEST_TABLE_BUDGET_MS,
  longestKeyCallMs,
} from '../../../shared/gateway/key-call-retry';
import { AwsUsageKeyRegistry, AwsUsageKeyRetirer } from '../../../shared/gateway/usage-key-registry';
import { FUNCTION_GROUPS } from '../../../shared/http/route-table';

/** An SDK error as the API Gateway client throws it. */
const sdkError = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
const throttled = () => sdkError('TooManyRequestsException', 429);

/**
 * API Gateway's key management as a fake client: each command answers from a script of outcomes
 * (an error to throw, or the output), and every call and every wait is recorded.
 */
function fakeGateway(script: Record<string, (Error | Record<string, unknown>)[]>) {
  const calls: { command: string; input: Record<string, unknown>; bounded: boolean }[] = [];
  const waits: number[] = [];
  const keys = new Set<string>();
  const client = {
    async send(command: object, options?: { abortSignal?: AbortSignal }) {
      const name = command.constructor.name.replace(/Command$/, '');
      const input = (command as { input: Record<string, unknown> }).input;
      calls.push({ command: name, input, bounded: options?.abortSignal instanceof AbortSignal });
      const outcome = script[name]?.shift() ?? {};
      if (outcome instanceof Error) throw outcome;
      if (name === 'CreateApiKey') keys.add(String(outcome.id));
      if (name === 'DeleteApiKey') keys.delete(String(input.apiKey));
      return outcome;
    },
  };
  const options = { client, sleep: async (ms: number) => void waits.push(ms), random: () => 1 };
  return { calls, waits, keys, options };
}

describe('API Gateway key calls', () => {
  it('leaves the api-keys function time for three key calls with every retry, within the gateway’s 29 s', () => {
    expect(KEY_CALL_RETRY).toEqual({ attempts: 4, backoffCeilingsMs: [250, 500, 1_000], attemptTimeoutMs: 1_500 });
    // 4 attempts of at most 1.5 s, and waits of at most 0.25 + 0.5 + 1 s.
    expect(longestKeyCallMs()).toBe(7_750);
    expect(KEY_CALLS_PER_REQUEST * longestKeyCallMs() + KEY_REQUEST_TABLE_BUDGET_MS).toBe(25_250);
    expect(API_KEYS_TIMEOUT_SECONDS).toBe(27);
    expect(FUNCTION_GROUPS.apiKeys.timeoutSeconds).toBe(27);
  });

  it('retries a throttled CreateApiKey with growing, jittered waits, then attaches the key to the plan', async () => {
    const gateway = fakeGateway({ CreateApiKey: [throttled(), throttled(), { id: 'k1' }] });
    const registry = new AwsUsageKeyRegistry('plan-1', { ...gateway.options, random: () => 0 });
    const issued = await registry.issue('key-7');
    expect(issued.id).toBe('k1');
    expect(issued.value).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(gateway.calls.map((call) => call.command)).toEqual(['CreateApiKey', 'CreateApiKey', 'CreateApiKey', 'CreateUsagePlanKey']);
    expect(gateway.calls[0]?.input).toEqual({ name: 'key-7', enabled: true, value: issued.value });
    expect(gateway.calls[3]?.input).toEqual({ usagePlanId: 'plan-1', keyId: 'k1', keyType: 'API_KEY' });
    // Half the ceiling at the lowest jitter; every attempt is bounded by its own abort signal.
    expect(gateway.waits).toEqual([125, 250]);
    expect(gateway.calls.every((call) => call.bounded)).toBe(true);
  });

  it('gives up after four attempts and creates nothing', async () => {
    const gateway = fakeGateway({ CreateApiKey: [throttled(), throttled(), throttled(), throttled(), { id: 'late' }] });
    await expect(new AwsUsageKeyRegistry('plan-1', gateway.options).issue('key-7')).rejects.toThrow('TooManyRequestsException');
    expect(gateway.calls.map((call) => call.command)).toEqual(['CreateApiKey', 'CreateApiKey', 'CreateApiKey', 'CreateApiKey']);
    expect(gateway.waits).toEqual([250, 500, 1_000]);
    expect(gateway.keys.size).toBe(0);
  });

  it('does not repeat a CreateApiKey whose outcome is unknown: a second call could make a second key', async () => {
    const gateway = fakeGateway({ CreateApiKey: [sdkError('AbortError', 0)] });
    await expect(new AwsUsageKeyRegistry('plan-1', gateway.options).issue('key-7')).rejects.toThrow('AbortError');
    expect(gateway.calls.map((call) => call.command)).toEqual(['CreateApiKey']);
  });

  it('deletes a key it made but could not attach to the plan, so none is left behind', async () => {
    const refused = sdkError('BadRequestException', 400);
    const gateway = fakeGateway({ CreateApiKey: [{ id: 'k1' }], CreateUsagePlanKey: [refused], DeleteApiKey: [throttled(), {}] });
    await expect(new AwsUsageKeyRegistry('plan-1', gateway.options).issue('key-7')).rejects.toBe(refused);
    expect(gateway.calls.map((call) => `${call.command} ${JSON.stringify(call.input)}`)).toEqual([
      expect.stringMatching(/^CreateApiKey /),
      'CreateUsagePlanKey {"usagePlanId":"plan-1","keyId":"k1","keyType":"API_KEY"}',
      'DeleteApiKey {"apiKey":"k1"}',
      'DeleteApiKey {"apiKey":"k1"}',
    ]);
    expect(gateway.keys.size).toBe(0);
  });

  it('retries an attach whose answer was lost, and takes "already attached" as done', async () => {
    const gateway = fakeGateway({
      CreateApiKey: [{ id: 'k1' }],
      CreateUsagePlanKey: [sdkError('InternalServerError', 500), sdkError('ConflictException', 409)],
    });
    expect((await new AwsUsageKeyRegistry('plan-1', gateway.options).issue('key-7')).id).toBe('k1');
    expect(gateway.calls.map((call) => call.command)).toEqual(['CreateApiKey', 'CreateUsagePlanKey', 'CreateUsagePlanKey']);
    expect(gateway.keys).toEqual(new Set(['k1']));
  });

  it('names the key left behind when neither the attach nor the delete succeeds', async () => {
    const gateway = fakeGateway({
      CreateApiKey: [{ id: 'k1' }],
      CreateUsagePlanKey: [sdkError('BadRequestException', 400)],
      DeleteApiKey: [throttled(), throttled(), throttled(), throttled()],
    });
    await expect(new AwsUsageKeyRegistry('plan-1', gateway.options).issue('key-7')).rejects.toThrow(
      'Usage key k1 was created but neither attached to the plan nor deleted',
    );
  });

  it('retires a key with retries, and a key already gone is retired', async () => {
    const gateway = fakeGateway({ DeleteApiKey: [sdkError('ServiceUnavailableException', 503), sdkError('NotFoundException', 404)] });
    await new AwsUsageKeyRetirer(gateway.options).retire('k9');
    expect(gateway.calls.map((call) => `${call.command} ${String(call.input.apiKey)}`)).toEqual(['DeleteApiKey k9', 'DeleteApiKey k9']);
    expect(gateway.waits).toEqual([250]);
  });
});
