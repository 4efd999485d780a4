import * as v from 'valibot';
import { MAX_ACCOUNT_DAILY_LIMITS, MAX_ACCOUNT_NAME_LENGTH } from '../../domain/sender-accounts/sender-account';
import { typedName, withoutControls } from '../../domain/validation';
import { Count, Id, Success, Timestamp, closed, defineRoute, idParam } from './define';

export const RegisterAccountBody = v.object({
  provider_account_id: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('provider_account_id is required'),
    v.maxLength(200, 'provider_account_id must be at most 200 characters'),
    v.regex(/^[A-Za-z0-9_.:-]+$/, 'provider_account_id must contain only letters, digits and _ . : -'),
  ),
  // Empty (or nothing but control characters): the provider's name for the account.
  name: v.optional(
    v.pipe(v.string(), v.trim(), v.maxLength(MAX_ACCOUNT_NAME_LENGTH, `name must be at most ${MAX_ACCOUNT_NAME_LENGTH} characters`), withoutControls),
  ),
});

const redirectUrl = (field: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.maxLength(2048, `${field} must be at most 2048 characters`),
      v.url(`${field} must be a valid URL`),
      v.check((value) => /^https?:\/\//i.test(value), `${field} must be an http(s) URL`),
    ),
  );

export const ConnectLinkBody = v.object({
  type: v.optional(v.picklist(['NETWORK', 'EMAIL'], "type must be either 'NETWORK' or 'EMAIL'"), 'NETWORK'),
  success_redirect_url: redirectUrl('success_redirect_url'),
  failure_redirect_url: redirectUrl('failure_redirect_url'),
  reconnect_account_id: v.optional(
    v.pipe(
      v.number('reconnect_account_id must be an integer'),
      v.integer('reconnect_account_id must be an integer'),
      v.minValue(1, 'reconnect_account_id must be a positive integer'),
    ),
  ),
});

const dailyLimit = (field: string, max: number) => {
  const message = `daily_limits.${field} must be an integer from 0 to ${max}`;
  return v.optional(v.pipe(v.number(message), v.integer(message), v.minValue(0, message), v.maxValue(max, message)));
};

const DAILY_LIMITS_MESSAGE = 'daily_limits must be an object with emails, invitations and/or network_messages';
/** An object (not an array, which valibot's object schemas accept) of the three limits, each optional. */
const DailyLimitsBody = v.pipe(
  v.unknown(),
  v.check((input) => typeof input === 'object' && input !== null && !Array.isArray(input), DAILY_LIMITS_MESSAGE),
  closed(
    {
      emails: dailyLimit('emails', MAX_ACCOUNT_DAILY_LIMITS.emails),
      invitations: dailyLimit('invitations', MAX_ACCOUNT_DAILY_LIMITS.invitations),
      network_messages: dailyLimit('network_messages', MAX_ACCOUNT_DAILY_LIMITS.networkMessages),
    },
    (field, fields) => `daily_limits.${field} is not a daily limit (limits: ${fields.join(', ')})`,
  ),
);

const NAME_LENGTH = `name must be 1 to ${MAX_ACCOUNT_NAME_LENGTH} characters`;

/** PATCH: the name, the daily limits and the end of a sending pause only; any other field is a 400 naming it. */
export const UpdateAccountBody = closed(
  {
    name: v.optional(typedName(MAX_ACCOUNT_NAME_LENGTH, { empty: NAME_LENGTH, tooLong: NAME_LENGTH, notString: NAME_LENGTH })),
    daily_limits: v.optional(DailyLimitsBody),
    /** null ends the engine's sending pause (an account fixed without the provider reporting a change). */
    sending_paused: v.optional(v.null('sending_paused can only be set to null (to end the sending pause)')),
  },
  (field, fields) => `${field} cannot be changed (fields: ${fields.join(', ')})`,
);

const SenderAccountView = v.strictObject({
  id: Id,
  name: v.string(),
  type: v.picklist(['NETWORK', 'EMAIL']),
  status: v.string(),
  is_active: v.boolean(),
  provider_account_id: v.string(),
  provider_type: v.string(),
  daily_limits: v.strictObject({ emails: Count, invitations: Count, network_messages: Count }),
  sending_paused: v.nullable(v.strictObject({ reason: v.string(), until: v.nullable(Timestamp), at: Timestamp })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const AccountAnswer = v.strictObject({ success: v.literal(true), account: SenderAccountView });

/** Sender accounts of the caller's workspace (network accounts and mailboxes at the provider). */
export const accountRoutes = {
  listAccounts: defineRoute('accounts', {
    method: 'GET',
    path: '/public/accounts',
    auth: 'apiKey',
    summary: "The workspace's sender accounts.",
    responses: { 200: v.strictObject({ success: v.literal(true), accounts: v.array(SenderAccountView) }) },
  }),
  registerAccount: defineRoute('accounts', {
    method: 'POST',
    path: '/public/accounts',
    auth: 'apiKey',
    summary: 'Registers an account already connected at the provider: 201 when new, 200 when the workspace had it.',
    request: { body: RegisterAccountBody },
    responses: { 200: AccountAnswer, 201: AccountAnswer },
    errors: [409, 502],
  }),
  createConnectLink: defineRoute('accounts', {
    method: 'POST',
    path: '/public/accounts/connect-link',
    auth: 'apiKey',
    summary: "A link to the provider's hosted page that connects (or reconnects) an account.",
    request: { body: ConnectLinkBody },
    responses: { 201: v.strictObject({ success: v.literal(true), url: v.string(), expires_at: Timestamp }) },
    errors: [404, 502],
  }),
  updateAccount: defineRoute('accounts', {
    method: 'PATCH',
    path: '/public/accounts/{id}',
    auth: 'apiKey',
    summary: "Renames a sender account or changes its daily limits (limits not given keep their value).",
    request: { path: v.object({ id: idParam('Account not found') }), body: UpdateAccountBody },
    responses: { 200: AccountAnswer },
    errors: [404],
  }),
  deleteAccount: defineRoute('accounts', {
    method: 'DELETE',
    path: '/public/accounts/{id}',
    auth: 'apiKey',
    summary: 'Removes a sender account from the workspace.',
    request: { path: v.object({ id: idParam('Account not found') }) },
    responses: { 200: Success },
    errors: [404],
  }),
};
