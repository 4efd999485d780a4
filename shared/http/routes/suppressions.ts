import * as v from 'valibot';
import { MAX_SUPPRESSIONS_PER_REQUEST, suppressionDomain, suppressionEmail } from '../../domain/suppressions/suppression';
import { Id, Timestamp, closed, defineRoute, idParam } from './define';

export const SuppressionView = v.strictObject({
  id: Id,
  type: v.picklist(['EMAIL', 'DOMAIN']),
  value: v.string(),
  reason: v.picklist(['UNSUBSCRIBED', 'HARD_BOUNCE', 'MANUAL']),
  prospect_id: v.nullable(Id),
  campaign_id: v.nullable(Id),
  created_at: Timestamp,
});

const values = (field: string, valid: (text: string) => string | undefined, what: string) =>
  v.optional(
    v.pipe(
      v.array(
        v.pipe(
          v.string(`${field} must hold strings`),
          v.check(
            (text) => valid(text) !== undefined,
            (issue) => `${field}: ${JSON.stringify(String(issue.input).slice(0, 300))} is not ${what}`,
          ),
        ),
        `${field} must be an array`,
      ),
      v.maxLength(MAX_SUPPRESSIONS_PER_REQUEST, `${field}: at most ${MAX_SUPPRESSIONS_PER_REQUEST} values`),
    ),
  );

export const AddSuppressionsBody = v.pipe(
  closed(
    {
      emails: values('emails', suppressionEmail, 'an email address'),
      domains: values('domains', suppressionDomain, 'a domain name'),
    },
    (field, fields) => `Unknown field ${field}: expected ${fields.join(' and/or ')}`,
  ),
  v.check((body) => (body.emails?.length ?? 0) + (body.domains?.length ?? 0) > 0, 'Give at least one value in emails or domains'),
  v.metadata({ anyOf: [{ required: ['emails'], properties: { emails: { minItems: 1 } } }, { required: ['domains'], properties: { domains: { minItems: 1 } } }] }),
  v.check(
    (body) => (body.emails?.length ?? 0) + (body.domains?.length ?? 0) <= MAX_SUPPRESSIONS_PER_REQUEST,
    `At most ${MAX_SUPPRESSIONS_PER_REQUEST} values a request (emails and domains together)`,
  ),
);

const suppressionPath = v.object({ id: idParam('Suppression not found') });

/** The workspace suppression list: addresses and domains no email step of the workspace sends to. */
export const suppressionRoutes = {
  listSuppressions: defineRoute('suppressions', {
    method: 'GET',
    path: '/public/suppressions',
    auth: 'apiKey',
    summary: 'A page of 100 entries of the workspace suppression list, in id order; `next_cursor` continues.',
    request: { query: v.object({ cursor: v.optional(v.pipe(v.string(), v.maxLength(100, 'cursor is not valid'))) }) },
    responses: { 200: v.strictObject({ success: v.literal(true), suppressions: v.array(SuppressionView), next_cursor: v.nullable(v.string()) }) },
  }),
  addSuppressions: defineRoute('suppressions', {
    method: 'POST',
    path: '/public/suppressions',
    auth: 'apiKey',
    summary: `Puts addresses and domains on the list (lowercased; at most ${MAX_SUPPRESSIONS_PER_REQUEST} a request). A value already there keeps its entry and is listed in \`already_suppressed\`.`,
    request: { body: AddSuppressionsBody },
    responses: {
      200: v.strictObject({ success: v.literal(true), added: v.array(SuppressionView), already_suppressed: v.array(SuppressionView) }),
    },
  }),
  deleteSuppression: defineRoute('suppressions', {
    method: 'DELETE',
    path: '/public/suppressions/{id}',
    auth: 'apiKey',
    summary: 'Takes an entry off the list: later emails to it go out again.',
    request: { path: suppressionPath },
    responses: { 200: v.strictObject({ success: v.literal(true), suppression: SuppressionView }) },
    errors: [404],
  }),
};
