import { Server } from 'node:net';
import { startFauxqs } from 'fauxqs';

/** The SQS emulator as the local runtime and the tests run it. */
export interface LocalQueues {
  /** Its endpoint, on the loopback address. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Runs `start` with every server it opens on the wildcard address bound to loopback instead, and
 * puts `listen` back after it.
 */
export async function onLoopbackOnly<T>(start: () => Promise<T>): Promise<T> {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function listenOnLoopback(this: Server, ...args: unknown[]) {
    const [options] = args;
    if (typeof options === 'object' && options !== null && (options as { host?: unknown }).host === '0.0.0.0') args[0] = { ...options, host: '127.0.0.1' };
    return (listen as (...listenArgs: unknown[]) => Server).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    Server.prototype.listen = listen;
  }
}

/**
 * Starts the in-process SQS emulator on a free loopback port. fauxqs listens on 0.0.0.0 whatever
 * `host` it is given (1.9 and 2.4 alike), which put the local queues within the network's reach:
 * anyone on the LAN could list them and queue a webhook that the worker then signed with a user's
 * secret (probe, 2026-11-29). DynamoDB Local has no option to choose its address at all (README.md).
 */
export async function startLocalQueues(): Promise<LocalQueues> {
  const fauxqs = await onLoopbackOnly(() => startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }));
  return { endpoint: `http://127.0.0.1:${fauxqs.port}`, stop: () => fauxqs.stop() };
}
