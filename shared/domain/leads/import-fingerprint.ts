import { createHash } from 'node:crypto';
import type { ProspectInput } from './import-rows';
import { prospectIdentities } from './lead';

/**
 * Re-importing rows that change nothing, without reading the leads. When an import row is applied
 * to a lead (created, updated, or found unchanged), the lead's primary identity guard records the
 * row's fingerprint with the lead and company versions the row left. A later row with the same
 * fingerprint is unchanged exactly when the lead and its company are still at those versions,
 * which conditional checks confirm without reading them (see LeadRepository.confirmUnchanged).
 */

/** What the guard of a row's primary identity says of the last row applied through it. */
export interface Fingerprint {
  leadId: number;
  fp: string;
  leadVersion: number;
  companyId?: number;
  companyVersion?: number;
}

/** A fingerprint to record on a guard, for the row that just settled a lead. */
export interface FingerprintStamp extends Fingerprint {
  identity: string;
}

/** The identity whose guard carries a row's fingerprint: the profile URL, else the email. */
export const primaryIdentity = (input: ProspectInput): string | undefined => prospectIdentities(input.fields)[0];

/** The fingerprint of importing `input` into `listId`, overwriting: same row, same list, same effect. */
export function rowFingerprint(listId: number, input: ProspectInput): string {
  return createHash('sha256').update(JSON.stringify([listId, input.fields, input.company ?? null])).digest('base64url').slice(0, 32);
}

/**
 * The rows that may skip planning: those whose identities no other row of the batch shares (a
 * shared identity makes one row a duplicate of another, which only planning decides).
 */
export function fastPathCandidates(inputs: ProspectInput[]): number[] {
  const seen = new Map<string, number>();
  for (const input of inputs) for (const identity of prospectIdentities(input.fields)) seen.set(identity, (seen.get(identity) ?? 0) + 1);
  return inputs.flatMap((input, index) => {
    const identities = prospectIdentities(input.fields);
    return identities.length > 0 && identities.every((identity) => seen.get(identity) === 1) ? [index] : [];
  });
}
