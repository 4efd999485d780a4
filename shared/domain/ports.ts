/** Time, injected so rules and services are deterministic under test. */
export type Clock = () => Date;

/** Allocates service-wide unique integer ids (see shared/db/id-allocator.ts). */
export interface IdGenerator {
  next(): Promise<number>;
}
