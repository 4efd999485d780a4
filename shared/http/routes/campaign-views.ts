import * as v from 'valibot';
import { CAMPAIGN_STATUSES, WEEKDAYS } from '../../domain/campaigns/campaign';
import { CONDITION_TYPES, STEP_TYPES } from '../../domain/campaigns/nodes';
import { Count, Id, Timestamp } from './define';

/** API shapes of campaigns and their flows (spec: Campaign, Campaign step, Campaign condition). */

const DayWindowView = v.strictObject({ enabled: v.boolean(), start: v.string(), end: v.string() });
export const SendingWindowView = v.partial(
  v.strictObject(Object.fromEntries(WEEKDAYS.map((day) => [day, DayWindowView])) as Record<(typeof WEEKDAYS)[number], typeof DayWindowView>),
);

const campaignFields = {
  id: Id,
  name: v.string(),
  status: v.picklist(CAMPAIGN_STATUSES),
  workspace_id: Id,
  timezone: v.string(),
  language: v.string(),
  email_max_messages: Count,
  network_max_messages: Count,
  network_max_connections: Count,
  sending_window: SendingWindowView,
  account_ids: v.array(Id),
  stop_on_company_reply: v.boolean(),
  prospect_count: Count,
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const CampaignView = v.strictObject(campaignFields);

/** Spec 3.9: the app host's campaign list, exactly these fields. */
export const CampaignListItemView = v.pick(CampaignView, [
  'id',
  'name',
  'status',
  'workspace_id',
  'timezone',
  'language',
  'created_at',
  'updated_at',
  'prospect_count',
]);

const NullableId = v.nullable(Id);

export const StepView = v.strictObject({
  id: Id,
  step_type: v.picklist(STEP_TYPES),
  subject_line: v.string(),
  message_template: v.string(),
  subject_line_b: v.string(),
  message_template_b: v.string(),
  delay_in_hours: Count,
  add_unsubscribe: v.boolean(),
  parent_step_id: NullableId,
  parent_condition_id: NullableId,
  branch: v.nullable(v.picklist(['YES', 'NO'])),
  child_step_id: NullableId,
  child_condition_id: NullableId,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ConditionView = v.strictObject({
  id: Id,
  condition_type: v.picklist(CONDITION_TYPES),
  delay_in_hours: Count,
  parent_step_id: NullableId,
  yes_child_step_id: NullableId,
  no_child_step_id: NullableId,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CampaignAccountView = v.strictObject({
  id: Id,
  name: v.string(),
  type: v.picklist(['NETWORK', 'EMAIL']),
  status: v.string(),
  is_active: v.boolean(),
});

export const CampaignDetailView = v.strictObject({
  ...campaignFields,
  accounts: v.array(CampaignAccountView),
  steps: v.array(StepView),
  conditions: v.array(ConditionView),
  first_step: v.nullable(StepView),
  first_condition: v.nullable(ConditionView),
});
