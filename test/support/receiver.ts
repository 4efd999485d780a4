import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface PlannedResponse {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer (the sender's timeout must fire). */
  hang?: boolean;
  /** Send the status, the headers and `body`, and never end the body (a slow or stuck answer). */
  stallBody?: boolean;
}

/**
 * A local webhook receiver over real HTTP: records every request and answers from a plan (one
 * planned response per request, then the default).
 */
export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Answers for the next requests, in order. */
  plan(...responses: PlannedResponse[]): void;
  /** The answer once the plan is used up (200 `ok` unless changed). */
  setDefault(response: PlannedResponse): void;
  reset(): void;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let planned: PlannedResponse[] = [];
  let fallback: PlannedResponse = { status: 200, body: 'ok' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const response = planned.shift() ?? fallback;
      if (response.hang) return;
      res.writeHead(response.status, { 'content-type': 'text/plain', ...response.headers });
      if (response.stallBody) res.write(response.body ?? '');
      else res.end(response.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    plan: (...responses) => {
      planned.push(...responses);
    },
    setDefault: (response) => {
      fallback = response;
    },
    reset: () => {
      requests.length = 0;
      planned = [];
      fallback = { status: 200, body: 'ok' };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
