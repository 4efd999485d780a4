import type { LocalStack, LocalStackOptions } from '../infra/local/local-stack';
import type { CapacityMeter } from '../shared/db/capacity-meter';

/** What every scenario gets: a running local stack with capacity tracking, and a signed-up user. */
export interface BenchContext {
  stack: LocalStack;
  meter: CapacityMeter;
  user: { token: string; apiKey: string; userId: number; workspaceId: number };
  /** One request through the local gateway over HTTP. */
  call(method: string, path: string, options?: { body?: unknown; apiKey?: string; token?: string }): Promise<{ status: number; body: any }>;
}

/** A scenario's findings: a markdown section (heading, table, notes). */
export interface BenchSection {
  title: string;
  markdown: string;
}

export interface BenchScenario {
  name: string;
  /**
   * Options of a stack of the scenario's own (a ManualClock and no background poller or timer, so
   * the scenario moves time and drives the engine itself); unset: the stack the scenarios share.
   */
  stack?: () => Pick<LocalStackOptions, 'clock' | 'background' | 'functionLog'>;
  run(context: BenchContext): Promise<BenchSection>;
}

export const median = (values: number[]): number => percentile(values, 50);

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Runs `fn` and reports wall time and the DynamoDB capacity it consumed. */
export async function measured<T>(meter: CapacityMeter, fn: () => Promise<T>) {
  meter.reset();
  const started = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - started, rcu: meter.readUnits, wcu: meter.writeUnits, wcuComputed: meter.computedWriteUnits, calls: meter.calls };
}
