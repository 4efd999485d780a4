import { createServer } from 'node:http';
import { type AddressInfo, Server, connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { onLoopbackOnly, startLocalQueues } from '../../../infra/local/local-queues';

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    const settle = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.setTimeout(2_000);
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.once('timeout', () => settle(false));
  });

/** The machine's own IPv4 addresses other than loopback (each a way in from the network). */
const outwardAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
    .map((entry) => entry?.address as string);

/** Where a server started by `listen` is bound. */
async function boundAddress(listen: (server: ReturnType<typeof createServer>, done: () => void) => void): Promise<string> {
  const server = createServer();
  await onLoopbackOnly(() => new Promise<void>((resolve) => listen(server, resolve)));
  const { address } = server.address() as AddressInfo;
  server.close();
  return address;
}

describe('the local runtime listens on loopback only', () => {
  const original = Server.prototype.listen;

  it('binds a server asked for a wildcard address, or none, to 127.0.0.1 while starting', async () => {
    expect(await boundAddress((server, done) => server.listen({ port: 0, host: '0.0.0.0' }, done))).toBe('127.0.0.1');
    expect(await boundAddress((server, done) => server.listen({ port: 0 }, done))).toBe('127.0.0.1');
    expect(await boundAddress((server, done) => server.listen(0, '::', done))).toBe('127.0.0.1');
    expect(await boundAddress((server, done) => server.listen(0, done))).toBe('127.0.0.1');
    expect(Server.prototype.listen).toBe(original);
  });

  it('puts listen back after a start that fails, and refuses a server bound elsewhere (closing it)', async () => {
    await expect(onLoopbackOnly(() => Promise.reject(new Error('no start')))).rejects.toThrow('no start');
    expect(Server.prototype.listen).toBe(original);

    const elsewhere = createServer();
    await expect(onLoopbackOnly(() => new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve)))).rejects.toThrow(
      'A local server listens on 127.0.0.2, not on 127.0.0.1 only: refusing to run it',
    );
    expect(elsewhere.listening).toBe(false);
    expect(Server.prototype.listen).toBe(original);
  });

  it('the SQS emulator answers on loopback and refuses the machine’s other addresses (it listened on 0.0.0.0)', async () => {
    const outward = outwardAddresses();
    expect(outward).not.toEqual([]); // this machine has an address the network reaches
    const queues = await startLocalQueues();
    try {
      const port = Number(new URL(queues.endpoint).port);
      expect(await accepts('127.0.0.1', port)).toBe(true);
      const reachable = await Promise.all(outward.map(async (address) => ({ address, accepted: await accepts(address, port) })));
      expect(reachable.filter((entry) => entry.accepted)).toEqual([]);
    } finally {
      await queues.stop();
    }
  });
});
