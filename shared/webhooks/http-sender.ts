import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isSuccessStatus } from '../domain/webhooks/delivery';
import type { SendOutcome, WebhookSender } from '../domain/webhooks/ports';
import { checkDestination, classifyAddress } from './destination';

/** Resolves a name to all its addresses (the system resolver by default). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export interface HttpSenderOptions {
  allowLoopback: boolean;
  /** Injected in tests to play DNS tricks (rebinding); the system resolver otherwise. */
  resolve?: Resolve;
}

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** Bytes of a failed response read for its reason; the rest is not read. */
const REASON_BYTES = 1024;
const REASON_CHARS = 200;

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const NON_PUBLIC_ADDRESS = 'The webhook host resolves to a non-public address';
const HTTP_NOT_LOOPBACK = 'Plain http:// is only allowed to this machine, and the webhook host resolves to another address';

/**
 * SSRF guard, part 2 of 2: the `lookup` the socket uses to connect. Every address the name resolves
 * to must be public (loopback only where allowed; and only loopback for plain http://), else the
 * connection is refused. Because this runs for the connection itself, a name that resolved to a
 * public address a moment ago and to an internal one now (DNS rebinding) is caught.
 */
function guardedLookup(resolve: Resolve, allowLoopback: boolean, requireLoopback: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname)
      .then((addresses) => {
        const usable = addresses.filter((entry) => !options.family || entry.family === options.family);
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, '');
        }
        for (const entry of usable) {
          const verdict = classifyAddress(entry.address);
          // Plain http:// may only reach this machine: a public address is refused for that reason.
          if (requireLoopback && verdict !== 'loopback') return callback(new BlockedAddressError(HTTP_NOT_LOOPBACK), '');
          const allowed = verdict === 'public' || (verdict === 'loopback' && allowLoopback);
          if (!allowed) return callback(new BlockedAddressError(NON_PUBLIC_ADDRESS), '');
        }
        if (options.all) return callback(null, usable);
        const [first] = usable as [LookupAddress];
        return callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}

const cleanReason = (body: Buffer, statusMessage: string | undefined): string => {
  const text = body
    .toString('utf8')
    // Control characters (C0 and DEL) become spaces.
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return (text || statusMessage || '').slice(0, REASON_CHARS);
};

/**
 * POSTs to users' URLs: one request, bounded by `timeoutMs` from start to answer (its status),
 * redirects not followed (a 3xx is an answer like any other), no connection reuse, and the response
 * body read only (at most 1 KB, within the same bound) for the reason of a failure.
 */
export function createHttpSender(options: HttpSenderOptions): WebhookSender {
  const resolve = options.resolve ?? systemResolve;
  return {
    post(rawUrl, body, headers, timeoutMs) {
      const checked = checkDestination(rawUrl, { allowLoopback: options.allowLoopback });
      if (!checked.ok) return Promise.resolve({ kind: 'blocked', reason: checked.reason });
      const url = checked.url;
      const client = url.protocol === 'https:' ? https : http;
      return new Promise<SendOutcome>((settle) => {
        let settled = false;
        const done = (outcome: SendOutcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          settle(outcome);
        };
        // Set once the status line has come: the timeout then ends the read of the reason, not the answer.
        let answered: (() => void) | undefined;
        const request = client.request(
          url,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            agent: false,
            lookup: guardedLookup(resolve, options.allowLoopback, url.protocol === 'http:') as never,
          },
          (response) => {
            const status = response.statusCode ?? 0;
            const chunks: Buffer[] = [];
            let size = 0;
            const finish = () => {
              if (isSuccessStatus(status)) done({ kind: 'response', status, reason: '' });
              else {
                const retryAfter = response.headers['retry-after'];
                done({
                  kind: 'response',
                  status,
                  reason: cleanReason(Buffer.concat(chunks), response.statusMessage),
                  ...(retryAfter ? { retryAfter: retryAfter.slice(0, 64) } : {}),
                });
              }
              response.destroy();
            };
            // A 2xx is the answer as soon as its status comes: its body is never read, so a body
            // slow to end cannot turn an accepted delivery into a timeout that is sent again
            // (before 2026-11-28 it did: a webhook probe).
            if (isSuccessStatus(status)) return finish();
            answered = finish;
            response.on('data', (chunk: Buffer) => {
              chunks.push(chunk);
              size += chunk.length;
              if (size >= REASON_BYTES) finish();
            });
            response.on('end', finish);
            response.on('error', finish);
          },
        );
        const timer = setTimeout(() => {
          if (answered) answered();
          else done({ kind: 'timeout' });
          request.destroy();
        }, timeoutMs);
        request.on('error', (error: NodeJS.ErrnoException) => {
          if (error instanceof BlockedAddressError) done({ kind: 'blocked', reason: error.message });
          else done({ kind: 'network', reason: error.code ? `Connection failed (${error.code})` : 'Connection failed' });
        });
        request.end(body);
      });
    },
  };
}
