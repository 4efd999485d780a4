import * as v from 'valibot';
import { documentedAs } from '../../domain/validation';
import { HtmlPage, defineRoute } from './define';

/** The token of an unsubscribe link; whether it is one of ours is the handler's check (a 404 page). */
const tokenPath = v.object({ token: v.optional(v.string(), '') });

/** The RFC 8058 one-click body; the confirmation page's own form posts the same field. */
export const OneClickForm = documentedAs(v.object({ 'List-Unsubscribe': v.optional(v.literal('One-Click')) }), { required: ['List-Unsubscribe'] });

/**
 * The unsubscribe link of an email (docs/engine.md, "Unsubscribes and suppression"). Public: no
 * credentials, the signed token says who; each request counts against a per-IP limit (429).
 * Pages, not JSON: a person opens the link in a browser.
 */
/** The confirmation page: GET shows it; HEAD answers its status and headers without the body. */
const confirmationPage = {
  path: '/unsubscribe/{token}',
  auth: 'none',
  request: { path: tokenPath },
  responses: { 200: HtmlPage },
  produces: 'html',
  errors: [404, 429],
} as const;

export const unsubscribeRoutes = {
  unsubscribePage: defineRoute('unsubscribe', {
    ...confirmationPage,
    method: 'GET',
    summary: 'The confirmation page of an unsubscribe link: a button that unsubscribes. Changes nothing (mail software prefetches links).',
  }),
  // Link checkers (mail scanners, a browser's prefetch) may ask with HEAD.
  unsubscribePageHead: defineRoute('unsubscribe', {
    ...confirmationPage,
    method: 'HEAD',
    summary: 'The status and headers of the confirmation page, without its body (link checkers). Changes nothing.',
  }),
  unsubscribe: defineRoute('unsubscribe', {
    method: 'POST',
    path: '/unsubscribe/{token}',
    auth: 'none',
    summary:
      'One-click unsubscribe (RFC 8058): with the body `List-Unsubscribe=One-Click` (form-encoded or multipart), the address goes on the workspace suppression list and the prospect’s sequence stops (UNSUBSCRIBED), at once.',
    request: { path: tokenPath, body: OneClickForm },
    responses: { 200: HtmlPage },
    produces: 'html',
    consumes: 'form',
    errors: [404, 429],
    maxBodyBytes: 8 * 1024,
  }),
};
