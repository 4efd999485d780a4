import * as v from 'valibot';
import { PIPELINE_STATUSES } from '../../domain/leads/prospect-pipeline';
import { closed, defineRoute, idParam } from './define';
import { ProspectView } from './lead-views';

const STATUS_MESSAGE = `status must be one of ${PIPELINE_STATUSES.join(', ')}`;

/** PATCH: a pipeline stage only; any other field is a 400 naming it. */
export const UpdateProspectStatusBody = closed(
  { status: v.picklist(PIPELINE_STATUSES, STATUS_MESSAGE) },
  (field, fields) => `${field} cannot be changed here (fields: ${fields.join(', ')})`,
);

const ProspectPath = v.object({ prospect_id: idParam('Prospect not found') });
const ProspectResponse = v.strictObject({ success: v.literal(true), prospect: ProspectView });

/** One prospect and its pipeline stage (issue 12, "Replies, pipeline and inbox"). */
export const prospectStatusRoutes = {
  getProspect: defineRoute('prospects', {
    method: 'GET',
    path: '/public/prospects/{prospect_id}',
    auth: 'apiKey',
    summary: 'One prospect of the workspace, as the lead lists show it.',
    request: { path: ProspectPath },
    responses: { 200: ProspectResponse },
    errors: [404],
  }),
  updateProspectStatus: defineRoute('prospects', {
    method: 'PATCH',
    path: '/public/prospects/{prospect_id}',
    auth: 'apiKey',
    summary:
      'Sets the prospect’s pipeline stage (INTERESTED, NOT_INTERESTED, MEETING_SCHEDULED); this stops its sequence. An archived prospect: 409.',
    request: { path: ProspectPath, body: UpdateProspectStatusBody },
    responses: { 200: ProspectResponse },
    errors: [404, 409],
  }),
};
