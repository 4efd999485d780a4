import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LocalGatewayOptions, createLocalGateway } from '../../infra/local/gateway';
import { TokenBuckets } from '../../infra/local/token-bucket';

/**
 * Local gateways for unit tests, each on a free loopback port: without an authorizer (only public
 * routes or the local clock are asked) and with a limiter no public route reaches. Call `stopAll`
 * after each test: it closes every gateway started, open connections included.
 */
export function testGateways() {
  const running: Server[] = [];
  return {
    /** Starts one; its base URL. */
    async start(options: Omit<LocalGatewayOptions, 'authorizer' | 'limiter'>): Promise<string> {
      const server = createLocalGateway({
        authorizer: (() => Promise.reject(new Error('no authorizer here'))) as never,
        limiter: new TokenBuckets(() => ({ capacity: 1, refillTokens: 1, refillMs: 60_000 }), options.clock),
        ...options,
      });
      running.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async stopAll(): Promise<void> {
      for (const server of running.splice(0)) {
        await new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        });
      }
    },
  };
}
