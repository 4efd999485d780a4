import { Server } from 'node:net';
import { startFauxqs } from 'fauxqs';

/** The SQS emulator as the local runtime and the tests run it. */
export interface LocalQueues {
  /** Its endpoint, where it listens: on the loopback address. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

const WILDCARDS: ReadonlySet<unknown> = new Set(['0.0.0.0', '::', undefined]);

/**
 * `listen`'s arguments with a wildcard or missing host made 127.0.0.1: the options object form
 * (`{port, host}`, as fastify calls it) and the positional one (`port, host?, ...`). A path
 * (a Unix socket) or a handle is left alone.
 */
function onLoopback(args: unknown[]): unknown[] {
  const [first, second] = args;
  if (typeof first === 'object' && first !== null && !('path' in first) && !('fd' in first) && !('_handle' in first)) {
    const options = first as { host?: unknown };
    return WILDCARDS.has(options.host) ? [{ ...options, host: '127.0.0.1' }, ...args.slice(1)] : args;
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof second === 'string') return WILDCARDS.has(second) ? [first, '127.0.0.1', ...args.slice(2)] : args;
    return [first, '127.0.0.1', ...args.slice(1)];
  }
  return args;
}

/**
 * Runs `start` with every TCP server it opens on a wildcard address (or none) bound to 127.0.0.1
 * instead, and checks that each listens there: one that does not is closed, and the start fails.
 * `listen` is put back after it, unless someone else has replaced it meanwhile.
 */
export async function onLoopbackOnly<T>(start: () => Promise<T>): Promise<T> {
  const listen = Server.prototype.listen;
  const opened: Server[] = [];
  const loopbackListen = function listenOnLoopback(this: Server, ...args: unknown[]) {
    opened.push(this);
    return (listen as (...listenArgs: unknown[]) => Server).apply(this, onLoopback(args));
  } as typeof listen;
  Server.prototype.listen = loopbackListen;
  let started: T;
  try {
    started = await start();
  } finally {
    if (Server.prototype.listen === loopbackListen) Server.prototype.listen = listen;
  }
  const elsewhere = opened.map((server) => server.address()).filter((address) => typeof address === 'object' && address !== null && address.address !== '127.0.0.1');
  if (elsewhere.length > 0) {
    for (const server of opened) server.close();
    throw new Error(`A local server listens on ${elsewhere.map((address) => (address as { address: string }).address).join(', ')}, not on 127.0.0.1 only: refusing to run it`);
  }
  return started;
}

/**
 * Starts the in-process SQS emulator on a free loopback port. fauxqs listens on 0.0.0.0 whatever
 * `host` it is given (1.9 and 2.4 alike), which put the local queues within the network's reach:
 * anyone on the LAN could list them and queue a webhook that the worker then signed with a user's
 * secret (probe, 2026-11-29).
 * DynamoDB Local has no option to choose its address at all (README.md).
 */
export async function startLocalQueues(): Promise<LocalQueues> {
  const fauxqs = await onLoopbackOnly(() => startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }));
  return { endpoint: `http://127.0.0.1:${fauxqs.port}`, stop: () => fauxqs.stop() };
}
