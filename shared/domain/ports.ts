export type { Clock } from '../time/clock';

/** Allocates service-wide unique integer ids (see shared/db/id-allocator.ts). */
export interface IdGenerator {
  next(): Promise<number>;
}
