import { Logger } from '@aws-lambda-powertools/logger';

export type { Logger } from '@aws-lambda-powertools/logger';

/** `json`: one JSON object per line (Lambda, CloudWatch). `readable`: one short line per entry (npm start). */
export type LogFormat = 'json' | 'readable';

export interface LoggerOptions {
  /** The function's name in every entry (`service`). */
  service: string;
  format?: LogFormat;
  /** Where lines go instead of stdout/stderr (the local runtime and tests collect them). */
  sink?: (line: string) => void;
}

/** The console methods Powertools writes through. */
type LogConsole = Record<'log' | 'debug' | 'info' | 'warn' | 'error' | 'trace', (line: string) => void>;

/** Keys every entry has; the readable form leaves them out (or puts them first). */
const ENVELOPE = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'xray_trace_id', 'function_name']);

/** `12:00:01.234 INFO  Usage key not retired  request_id=… workspace_id=7 error.name=Error`. */
export function readableLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json);
  } catch {
    return json;
  }
  const time = typeof entry.timestamp === 'string' ? entry.timestamp.slice(11, 23) : '';
  const fields: string[] = [];
  const add = (prefix: string, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) add(`${prefix}.${key}`, inner);
    } else if (prefix.endsWith('.stack') && typeof value === 'string') {
      fields.push(`\n${value}`);
    } else {
      fields.push(`${prefix}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    }
  };
  for (const [key, value] of Object.entries(entry)) if (!ENVELOPE.has(key)) add(key, value);
  return [time, String(entry.level ?? '').padEnd(5), `[${entry.service}]`, entry.message, ...fields].join(' ');
}

/**
 * The one way functions get a logger: Powertools Logger (JSON lines with the Lambda request id,
 * cold start and the error with its stack), or readable lines locally. Nothing logs request
 * headers or bodies, so API keys, session tokens and secrets never reach the logs.
 */
export function createLogger(options: LoggerOptions): Logger {
  const logger = new Logger({ serviceName: options.service });
  const format = options.format ?? 'json';
  if (format === 'json' && !options.sink) return logger;
  const write = (line: string) => {
    const out = format === 'readable' ? readableLine(line) : line;
    if (options.sink) options.sink(out);
    else process.stdout.write(`${out}\n`);
  };
  const sink: LogConsole = { log: write, debug: write, info: write, warn: write, error: write, trace: write };
  // Powertools has no option for its output stream; its console is the one place entries are
  // written, so redirecting it keeps every formatting rule of the library intact.
  (logger as unknown as { console: LogConsole }).console = sink;
  return logger;
}
