import type { EnrichmentMark, Prospect } from '../leads/lead';
import { type EnrichmentType, MARK_ATTRIBUTE, fieldOf, holdsValidValue } from './enrichment';
import type { EnrichmentJob } from './ports';

/** A prospect holding a valid value of the job's field (phone text that is no number, "n/a", is none). */
export const hasValue = (prospect: Prospect, type: EnrichmentType) =>
  holdsValidValue(fieldOf(type), fieldOf(type) === 'email' ? prospect.email : prospect.phoneNumber);

/** The mark a job of this type leaves (MARK_ATTRIBUTE): email jobs on `emailEnrichment`, phone jobs on `phoneEnrichment`. */
export const markOn = (prospect: Prospect, type: EnrichmentType): EnrichmentMark | undefined => prospect[MARK_ATTRIBUTE[fieldOf(type)]];

/**
 * Whether another job has the prospect: it searched the same field after this job started (the two
 * ran at once, and that one charged for it), or it holds it with a claim of the layout before
 * 2026-11-26 (which held it whatever the field).
 */
export const takenByAnother = (prospect: Prospect, job: EnrichmentJob) => {
  const mark = markOn(prospect, job.type);
  return (prospect.enrichJob !== undefined && prospect.enrichJob !== job.id) || (mark !== undefined && mark.job !== job.id && mark.at >= job.createdAt);
};
