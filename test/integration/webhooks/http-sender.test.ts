import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../shared/webhooks/http-sender';

/**
 * What the webhook sender makes of a receiver's timing, over real HTTP on loopback: the bound is
 * on the answer (its status line), so a body slow to end never turns an answer into a timeout.
 */
describe('the webhook sender and slow answers', () => {
  const TIMEOUT_MS = 300;
  let server: http.Server;
  let base: string;
  const open: http.ServerResponse[] = [];
  const sender = createHttpSender({ allowLoopback: true });

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        open.push(response);
        // The status and the start of the body at once; the body never ends.
        if (request.url === '/ok-slow-body') {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.write('accepted, still writing');
        } else if (request.url === '/failed-slow-body') {
          response.writeHead(500, { 'content-type': 'text/plain' });
          response.write('Internal error: queue full');
        }
        // '/silent': no status at all.
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const response of open) response.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('takes a 2xx as delivered when its status comes, without waiting for its body to end', async () => {
    expect(await sender.post(`${base}/ok-slow-body`, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'response', status: 200, reason: '' });
  });

  it('answers a failure whose body does not end within the bound with its status and the reason read so far', async () => {
    expect(await sender.post(`${base}/failed-slow-body`, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'response', status: 500, reason: 'Internal error: queue full' });
  });

  it('times out when no status comes within the bound', async () => {
    expect(await sender.post(`${base}/silent`, '{}', {}, TIMEOUT_MS)).toEqual({ kind: 'timeout' });
  });
});
