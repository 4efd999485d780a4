import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda context for local invocations, with the deadline a real invocation would have. */
export function lambdaContext(functionName: string, timeoutMs: number, monotonicNow: () => number = () => performance.now()): Context {
  // Monotonic time: a deadline measures elapsed time, which the service's (movable) clock does not.
  const deadline = monotonicNow() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - monotonicNow()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
