import { createHash } from 'node:crypto';

/**
 * Which of `n` buckets an id falls in, evenly whatever the ids have in common: a hash of the id
 * (in its own namespace, so the same id spreads independently for each use). Never `id % n`: the
 * ids one allocator shard hands out are `counter × 64 + shard` (shared/db/id-allocator.ts), so
 * every id a process made shares its residue modulo 64, and with it modulo any n dividing 64.
 */
export function bucketOf(namespace: string, id: number, n: number): number {
  return createHash('sha256').update(`${namespace}:${id}`).digest().readUInt32BE(0) % n;
}
