export type { Clock } from '../time/clock';

/** Allocates service-wide unique integer ids (see shared/db/id-allocator.ts). */
export interface IdGenerator {
  next(): Promise<number>;
  /** A hint before a bulk write: about `count` ids will be asked for, reserve them at once. */
  reserve?(count: number): Promise<void>;
}
