import { expect } from 'vitest';

/** A timestamp as the service writes them (`Date#toISOString`: UTC, milliseconds). */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Matches a generated id: a positive safe integer (the allocator's ids are not predictable). */
export const anId = () => expect.toSatisfy((value: unknown) => Number.isSafeInteger(value) && (value as number) > 0, 'a positive safe integer id');

/** Matches a timestamp in the service's format. */
export const aTimestamp = () => expect.stringMatching(ISO_TIMESTAMP);

/** Bytes an answer's body takes in a function's result (what Lambda's 6 MB limit counts): the body escaped once more as a JSON string. */
export const inLambdaResult = (body: string): number => Buffer.byteLength(JSON.stringify(body));
