import * as v from 'valibot';
import { typedName } from '../../domain/validation';
import { CAMPAIGN_NOT_FOUND } from '../../domain/campaigns/lookup';
import { CAMPAIGN_LIMITS, LANGUAGE_MESSAGE, MAX_DAILY_CAPS, TIMEZONE_MESSAGE, WEEKDAYS, naming } from '../../domain/campaigns/campaign';
import { closed, defineRoute, idParam } from './define';
import { CampaignDetailView, CampaignListItemView, CampaignView } from './campaign-views';

const campaignName = typedName(CAMPAIGN_LIMITS.maxNameLength, {
  empty: 'name is required',
  tooLong: `name must be at most ${CAMPAIGN_LIMITS.maxNameLength} characters`,
});

export const CreateCampaignBody = v.object({ name: campaignName });

const dailyCap = (field: keyof typeof MAX_DAILY_CAPS) => {
  const message = `${field} must be an integer from 0 to ${MAX_DAILY_CAPS[field]}`;
  return v.optional(v.pipe(v.number(message), v.integer(message), v.minValue(0, message), v.maxValue(MAX_DAILY_CAPS[field], message)));
};

const clockTime = (field: string) => {
  const message = `${field} must be a time HH:MM (00:00 to 23:59)`;
  return v.pipe(v.string(message), v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, message));
};

const dayWindow = (day: string) =>
  v.pipe(
    v.strictObject(
      {
        enabled: v.boolean(`sending_window.${day}.enabled must be a boolean`),
        start: clockTime(`sending_window.${day}.start`),
        end: clockTime(`sending_window.${day}.end`),
      },
      `sending_window.${day} must be an object with exactly enabled, start and end`,
    ),
    v.check((window) => window.start < window.end, `sending_window.${day}: start must be before end`),
  );

const SENDING_WINDOW_MESSAGE = 'sending_window must be an object keyed by weekday names, monday to sunday';
const SendingWindowEntries = v.strictObject(
  Object.fromEntries(WEEKDAYS.map((day) => [day, v.optional(dayWindow(day))])) as Record<
    (typeof WEEKDAYS)[number],
    v.OptionalSchema<ReturnType<typeof dayWindow>, undefined>
  >,
  SENDING_WINDOW_MESSAGE,
);
/** An object (not an array, which valibot's object schemas accept) with only weekday keys. */
const SendingWindowBody = v.pipe(
  v.unknown(),
  v.check((input) => typeof input === 'object' && input !== null && !Array.isArray(input), SENDING_WINDOW_MESSAGE),
  SendingWindowEntries,
);

const accountIdMessage = 'account_ids must be an array of sender account ids';
const settingsEntries = {
  name: v.optional(campaignName),
  timezone: v.optional(
    v.pipe(
      v.string(TIMEZONE_MESSAGE),
      v.trim(),
      // A text that is no zone is named, as the domain's check names it (canonicalTimezone).
      v.nonEmpty(naming(TIMEZONE_MESSAGE)),
      v.maxLength(64, naming(TIMEZONE_MESSAGE)),
    ),
  ),
  language: v.optional(
    v.pipe(
      v.string(LANGUAGE_MESSAGE),
      v.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,4})?$/, naming(LANGUAGE_MESSAGE)),
    ),
  ),
  email_max_messages: dailyCap('email_max_messages'),
  network_max_messages: dailyCap('network_max_messages'),
  network_max_connections: dailyCap('network_max_connections'),
  sending_window: v.optional(SendingWindowBody),
  stop_on_company_reply: v.optional(v.boolean('stop_on_company_reply must be true or false')),
  account_ids: v.optional(
    v.pipe(
      v.array(v.pipe(v.number(accountIdMessage), v.safeInteger(accountIdMessage), v.minValue(1, accountIdMessage)), accountIdMessage),
      v.maxLength(CAMPAIGN_LIMITS.maxAccounts, `account_ids: at most ${CAMPAIGN_LIMITS.maxAccounts} accounts`),
    ),
  ),
};
/** PATCH: the settings only; any other field is a 400 naming it. */
export const UpdateCampaignBody = closed(settingsEntries, (field, fields) =>
  field === 'status'
    ? 'status cannot be set by PATCH: use the activate, pause, resume and archive endpoints'
    : `${field} is not a campaign setting (settings: ${fields.join(', ')})`,
);

export const AppCampaignsQuery = v.object({ workspace_id: v.optional(v.string()) });

const campaignPath = v.object({ id: idParam(CAMPAIGN_NOT_FOUND) });
const CampaignAnswer = v.strictObject({ success: v.literal(true), campaign: CampaignView });

const statusRoute = (action: string, summary: string) =>
  defineRoute('campaigns', {
    method: 'POST',
    path: `/public/campaigns/{id}/${action}`,
    auth: 'apiKey',
    summary,
    request: { path: campaignPath },
    responses: { 200: CampaignAnswer },
    errors: [404, 409],
  });

/** Spec: Campaigns (API key), and the app host's campaign list (session or API key). */
export const campaignRoutes = {
  listCampaigns: defineRoute('campaigns', {
    method: 'GET',
    path: '/public/campaigns',
    auth: 'apiKey',
    summary: "The workspace's campaigns, newest first, with their prospect counts.",
    responses: { 200: v.strictObject({ success: v.literal(true), campaigns: v.array(CampaignView) }) },
  }),
  createCampaign: defineRoute('campaigns', {
    method: 'POST',
    path: '/public/campaigns',
    auth: 'apiKey',
    summary: 'Creates a DRAFT campaign with the default settings; a name already used gets " (2)", " (3)", ... appended.',
    request: { body: CreateCampaignBody },
    responses: { 201: CampaignAnswer },
    errors: [409],
  }),
  getCampaign: defineRoute('campaigns', {
    method: 'GET',
    path: '/public/campaigns/{id}',
    auth: 'apiKey',
    summary: 'A campaign with its sender accounts, steps, conditions and the root of its flow.',
    request: { path: campaignPath },
    responses: { 200: v.strictObject({ success: v.literal(true), campaign: CampaignDetailView }) },
    errors: [404],
  }),
  updateCampaign: defineRoute('campaigns', {
    method: 'PATCH',
    path: '/public/campaigns/{id}',
    auth: 'apiKey',
    summary: "Changes a campaign's settings: name, timezone, language, daily caps, sending window and sender accounts.",
    request: { path: campaignPath, body: UpdateCampaignBody },
    responses: { 200: CampaignAnswer },
    errors: [404, 409],
  }),
  activateCampaign: statusRoute(
    'activate',
    'DRAFT, PAUSED or COMPLETED to ACTIVE (needs a step and an active sender account for each channel its steps use); schedules the prospects waiting for it.',
  ),
  pauseCampaign: statusRoute('pause', 'ACTIVE to PAUSED: nothing more is sent until it is resumed.'),
  resumeCampaign: statusRoute('resume', 'PAUSED to ACTIVE; schedules the prospects waiting for it.'),
  archiveCampaign: statusRoute('archive', 'Any status to ARCHIVED: the campaign becomes read-only.'),
  listAppCampaigns: defineRoute('campaigns', {
    method: 'GET',
    path: '/campaigns',
    auth: 'apiKeyOrSession',
    summary: 'Campaigns of the current workspace, of one linked workspace (`workspace_id`), or of every linked workspace (`workspace_id=ALL`).',
    request: { query: AppCampaignsQuery },
    responses: { 200: v.strictObject({ campaigns: v.array(CampaignListItemView) }) },
    errors: [403],
  }),
};
