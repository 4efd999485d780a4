import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, keyEndingIn } from '../key-text';

/** Numeric ids are zero-padded so that sort keys order like the numbers they hold. */
const ID_WIDTH = 16;

export const padId = (id: number): string => String(id).padStart(ID_WIDTH, '0');

/** A partition or sort key ending in text from outside, within DynamoDB's limits (key-text.ts). */
export const pkEndingIn = (fixed: string, text: string) => keyEndingIn(fixed, text, PARTITION_KEY_MAX_BYTES);
export const skEndingIn = (fixed: string, text: string) => keyEndingIn(fixed, text, SORT_KEY_MAX_BYTES);
