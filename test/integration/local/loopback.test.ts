import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
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

/** The machine's own addresses other than loopback (each a way in from the network). */
const outwardAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
    .map((entry) => entry?.address as string);

describe('the local runtime listens on loopback only', () => {
  it('binds a server asked for the wildcard address to 127.0.0.1 while starting, and leaves listen as it was after', async () => {
    const asked = createServer();
    await onLoopbackOnly(() => new Promise<void>((resolve) => asked.listen({ port: 0, host: '0.0.0.0' }, resolve)));
    expect((asked.address() as AddressInfo).address).toBe('127.0.0.1');
    asked.close();

    const after = createServer();
    await new Promise<void>((resolve) => after.listen({ port: 0, host: '0.0.0.0' }, resolve));
    expect((after.address() as AddressInfo).address).toBe('0.0.0.0');
    after.close();
  });

  it('the SQS emulator answers on loopback and refuses the machine’s other addresses (it listened on 0.0.0.0)', async () => {
    const queues = await startLocalQueues();
    try {
      const port = Number(new URL(queues.endpoint).port);
      expect(new URL(queues.endpoint).hostname).toBe('127.0.0.1');
      expect(await accepts('127.0.0.1', port)).toBe(true);
      const reachable = await Promise.all(outwardAddresses().map(async (address) => ({ address, accepted: await accepts(address, port) })));
      expect(reachable.filter((entry) => entry.accepted)).toEqual([]);
    } finally {
      await queues.stop();
    }
  });
});
