import * as v from 'valibot';
import { MAX_ACCOUNT_NAME_LENGTH } from '../../../shared/domain/sender-accounts/sender-account';

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
  reconnect_account_id: v.optional(v.pipe(v.number('reconnect_account_id must be an integer'), v.integer('reconnect_account_id must be an integer'), v.minValue(1, 'reconnect_account_id must be a positive integer'))),
});
