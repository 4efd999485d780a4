import * as v from 'valibot';
import { MAX_ACCOUNT_NAME_LENGTH } from '../../domain/sender-accounts/sender-account';
import { Id, Success, Timestamp, defineRoute, idParam } from './define';

export const RegisterAccountBody = v.object({
  provider_account_id: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('provider_account_id is required'),
    v.maxLength(200, 'provider_account_id must be at most 200 characters'),
    v.regex(/^[A-Za-z0-9_.:-]+$/, 'provider_account_id must contain only letters, digits and _ . : -'),
  ),
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(MAX_ACCOUNT_NAME_LENGTH, `name must be at most ${MAX_ACCOUNT_NAME_LENGTH} characters`))),
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

const SenderAccountView = v.strictObject({
  id: Id,
  name: v.string(),
  type: v.picklist(['NETWORK', 'EMAIL']),
  status: v.string(),
  is_active: v.boolean(),
  provider_account_id: v.string(),
  provider_type: v.string(),
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
