import * as v from 'valibot';
import { CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/lookup';
import { CONDITION_TYPES, STEP_TYPES } from '../../domain/campaigns/flow';
import { MAX_DELAY_HOURS } from '../../domain/campaigns/flow-content';
import { CampaignDetailView, ConditionView, StepView } from './campaign-views';
import { closed, defineRoute, idParam, unknownFieldOf } from './define';

/**
 * The steps and conditions of a campaign's flow (spec: Campaigns; docs/campaigns.md, "The flow").
 * Ids in a body are integers from 1; on creation `null` means "none", as leaving the field out.
 * Any field a body does not know is a 400 naming it.
 */

const STEP_TYPE_MESSAGE = `step_type must be one of ${STEP_TYPES.join(', ')}`;
const CONDITION_TYPE_MESSAGE = `condition_type must be one of ${CONDITION_TYPES.join(', ')}`;
const DELAY_MESSAGE = `delay_in_hours must be an integer from 0 to ${MAX_DELAY_HOURS}`;

const nodeId = (field: string) => {
  const message = `${field} must be a positive integer id`;
  return v.pipe(v.number(message), v.safeInteger(message), v.minValue(1, message));
};
const delay = v.pipe(v.number(DELAY_MESSAGE), v.integer(DELAY_MESSAGE), v.minValue(0, DELAY_MESSAGE), v.maxValue(MAX_DELAY_HOURS, DELAY_MESSAGE));
/** A text field; null clears it (stored as ""). Lengths and placeholders are the step's content rules (flow-content.ts). */
const text = (field: string) => v.nullish(v.string(`${field} must be a string`));
const branch = v.picklist(['YES', 'NO'], 'branch must be YES or NO');
const unsubscribe = v.boolean('add_unsubscribe must be a boolean');

const textEntries = {
  message_template: text('message_template'),
  subject_line: text('subject_line'),
  message_template_b: text('message_template_b'),
  subject_line_b: text('subject_line_b'),
};

export const CreateStepBody = closed(
  {
    step_type: v.picklist(STEP_TYPES, STEP_TYPE_MESSAGE),
    ...textEntries,
    delay_in_hours: v.nullish(delay),
    add_unsubscribe: v.nullish(unsubscribe),
    parent_step_id: v.nullish(nodeId('parent_step_id')),
    parent_condition_id: v.nullish(nodeId('parent_condition_id')),
    branch: v.nullish(branch),
  },
  unknownFieldOf('a new step'),
);

/**
 * What a node answers but a PATCH cannot change, accepted so that a client may send back a node
 * as it read it: `id` only as the node's own (another is a 400), the timestamps ignored.
 */
const readOnlyEntries = {
  id: v.optional(v.number('id must be a number')),
  created_at: v.optional(v.string('created_at must be a string')),
  updated_at: v.optional(v.string('updated_at must be a string')),
};

export const UpdateStepBody = closed(
  {
    // Accepted when it is the step's own type (a client sending the step back); a change is a 400.
    step_type: v.optional(v.picklist(STEP_TYPES, STEP_TYPE_MESSAGE)),
    ...textEntries,
    delay_in_hours: v.optional(delay),
    add_unsubscribe: v.optional(unsubscribe),
    // null: none, as the step reads when it has no such link (flow-service.ts, withoutNoneLinks).
    parent_step_id: v.nullish(nodeId('parent_step_id')),
    parent_condition_id: v.nullish(nodeId('parent_condition_id')),
    branch: v.nullish(branch),
    child_step_id: v.nullish(nodeId('child_step_id')),
    child_condition_id: v.nullish(nodeId('child_condition_id')),
    ...readOnlyEntries,
  },
  (field, fields) => `${field} cannot be changed on a step (fields: ${fields.join(', ')})`,
);

export const CreateConditionBody = closed(
  {
    condition_type: v.picklist(CONDITION_TYPES, CONDITION_TYPE_MESSAGE),
    delay_in_hours: v.nullish(delay),
    parent_step_id: v.nullish(nodeId('parent_step_id')),
    yes_child_step_id: v.nullish(nodeId('yes_child_step_id')),
    no_child_step_id: v.nullish(nodeId('no_child_step_id')),
  },
  unknownFieldOf('a new condition'),
);

/**
 * A condition's wiring fields are accepted with the values it has (a client may send back the
 * condition as it read it); another value is 400 (flow-service.ts): steps are moved, not conditions.
 */
export const UpdateConditionBody = closed(
  {
    condition_type: v.optional(v.picklist(CONDITION_TYPES, CONDITION_TYPE_MESSAGE)),
    delay_in_hours: v.optional(delay),
    parent_step_id: v.nullish(nodeId('parent_step_id')),
    yes_child_step_id: v.nullish(nodeId('yes_child_step_id')),
    no_child_step_id: v.nullish(nodeId('no_child_step_id')),
    ...readOnlyEntries,
  },
  (field, fields) => `${field} cannot be changed on a condition (fields: ${fields.join(', ')})`,
);

const campaignPath = v.object({ id: idParam(CAMPAIGN_NOT_FOUND) });
const stepPath = v.object({ id: idParam(CAMPAIGN_NOT_FOUND), step_id: idParam('Step not found') });
const conditionPath = v.object({ id: idParam(CAMPAIGN_NOT_FOUND), condition_id: idParam('Condition not found') });

const StepAnswer = v.strictObject({ success: v.literal(true), step: StepView, campaign: CampaignDetailView });
const ConditionAnswer = v.strictObject({ success: v.literal(true), condition: ConditionView, campaign: CampaignDetailView });
const DetailAnswer = v.strictObject({ success: v.literal(true), campaign: CampaignDetailView });

/**
 * A step's body holds up to two message templates of 50,000 characters and two subjects of 500;
 * JSON may write each character as a 6-byte `\uXXXX` escape, so any step the content rules accept
 * fits in 640 KB.
 */
const STEP_BODY_BYTES = 640 * 1024;

export const campaignFlowRoutes = {
  listCampaignSteps: defineRoute('campaigns', {
    method: 'GET',
    path: '/public/campaigns/{id}/steps',
    auth: 'apiKey',
    summary: "The campaign's steps in flow order: the main path first, then the branches.",
    request: { path: campaignPath },
    responses: { 200: v.strictObject({ success: v.literal(true), steps: v.array(StepView) }) },
    errors: [404],
  }),
  createCampaignStep: defineRoute('campaigns', {
    method: 'POST',
    path: '/public/campaigns/{id}/steps',
    auth: 'apiKey',
    summary:
      'Adds a step under parent_step_id, on a branch of parent_condition_id (branch, or the free one, YES first), or after the last node of the main path; a taken slot is inserted into. DRAFT and PAUSED campaigns only.',
    request: { path: campaignPath, body: CreateStepBody },
    responses: { 201: StepAnswer },
    errors: [404, 409],
    maxBodyBytes: STEP_BODY_BYTES,
  }),
  getCampaignStep: defineRoute('campaigns', {
    method: 'GET',
    path: '/public/campaigns/{id}/steps/{step_id}',
    auth: 'apiKey',
    summary: 'A step of the campaign, with its place in the flow.',
    request: { path: stepPath },
    responses: { 200: v.strictObject({ success: v.literal(true), step: StepView }) },
    errors: [404],
  }),
  updateCampaignStep: defineRoute('campaigns', {
    method: 'PATCH',
    path: '/public/campaigns/{id}/steps/{step_id}',
    auth: 'apiKey',
    summary:
      "Changes a step's texts, delay, A/B variant and unsubscribe flag (until the campaign is archived), or moves it (parent_step_id | parent_condition_id with branch, child_step_id | child_condition_id; DRAFT and PAUSED only).",
    request: { path: stepPath, body: UpdateStepBody },
    responses: { 200: StepAnswer },
    errors: [404, 409],
    maxBodyBytes: STEP_BODY_BYTES,
  }),
  deleteCampaignStep: defineRoute('campaigns', {
    method: 'DELETE',
    path: '/public/campaigns/{id}/steps/{step_id}',
    auth: 'apiKey',
    summary: "Deletes a step; its child takes its place, and prospects waiting on it move on to that child. DRAFT and PAUSED campaigns only.",
    request: { path: stepPath },
    responses: { 200: DetailAnswer },
    errors: [404, 409],
  }),
  createCampaignCondition: defineRoute('campaigns', {
    method: 'POST',
    path: '/public/campaigns/{id}/conditions',
    auth: 'apiKey',
    summary:
      "Adds a condition under parent_step_id (the step's former child becomes its YES child) or after the main path's last step, optionally moving existing steps onto its branches. DRAFT and PAUSED campaigns only.",
    request: { path: campaignPath, body: CreateConditionBody },
    responses: { 201: ConditionAnswer },
    errors: [404, 409],
  }),
  getCampaignCondition: defineRoute('campaigns', {
    method: 'GET',
    path: '/public/campaigns/{id}/conditions/{condition_id}',
    auth: 'apiKey',
    summary: 'A condition of the campaign, with its parent step and branches.',
    request: { path: conditionPath },
    responses: { 200: v.strictObject({ success: v.literal(true), condition: ConditionView }) },
    errors: [404],
  }),
  updateCampaignCondition: defineRoute('campaigns', {
    method: 'PATCH',
    path: '/public/campaigns/{id}/conditions/{condition_id}',
    auth: 'apiKey',
    summary:
      "Changes a condition's delay (until the campaign is archived) or its type (DRAFT and PAUSED only); its wiring fields are accepted with the values it has.",
    request: { path: conditionPath, body: UpdateConditionBody },
    responses: { 200: ConditionAnswer },
    errors: [404, 409],
  }),
  deleteCampaignCondition: defineRoute('campaigns', {
    method: 'DELETE',
    path: '/public/campaigns/{id}/conditions/{condition_id}',
    auth: 'apiKey',
    summary: 'Deletes a condition without steps on its branches; prospects waiting on it finish. DRAFT and PAUSED campaigns only.',
    request: { path: conditionPath },
    responses: { 200: DetailAnswer },
    errors: [404, 409],
  }),
};
