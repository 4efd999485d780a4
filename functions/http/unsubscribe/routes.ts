import type { RequestLimiter } from '../../../shared/domain/suppressions/ports';
import type { Unsubscribes } from '../../../shared/domain/suppressions/unsubscribe-service';
import type { HandlersFor, RouteRequest } from '../../../shared/http/http-handler';
import { html } from '../../../shared/http/responses';
import type { unsubscribeRoutes } from '../../../shared/http/routes/unsubscribe';
import type { RouteDefinition } from '../../../shared/http/routes/define';
import type { Clock } from '../../../shared/time/clock';
import { isOneClick } from './one-click';
import { confirmPage, donePage, invalidLinkPage, notOneClickPage, tooManyPage } from './pages';

/**
 * The unsubscribe link's pages. Every request first counts against its IP address's limit (the
 * route is public: no usage plan covers it). GET only checks the token; POST unsubscribes.
 */
export function unsubscribeHandlers(deps: { unsubscribes: Unsubscribes; limiter: RequestLimiter; clock: Clock }) {
  /** The 429 page when the caller's IP is over its limit; undefined when the request may go on. */
  async function overLimit(request: RouteRequest<RouteDefinition>) {
    const ip = request.event.requestContext?.identity?.sourceIp || 'unknown';
    const taken = await deps.limiter.take(ip, deps.clock.now());
    return taken.allowed ? undefined : html(429, tooManyPage(taken.retryAfterSeconds), { 'retry-after': String(taken.retryAfterSeconds) });
  }

  /** The confirmation page, or why not: GET's answer, and HEAD's (its body is never sent for HEAD). */
  async function page(request: RouteRequest<(typeof unsubscribeRoutes)['unsubscribePage']>) {
    const limited = await overLimit(request);
    if (limited) return limited;
    if (!deps.unsubscribes.check(request.path().token)) return html(404, invalidLinkPage());
    return html(200, confirmPage());
  }

  return {
    unsubscribePage: page,
    unsubscribePageHead: page,

    unsubscribe: async (request) => {
      const limited = await overLimit(request);
      if (limited) return limited;
      const { token } = request.path();
      if (!deps.unsubscribes.check(token)) return html(404, invalidLinkPage());
      if (!isOneClick(request.event.headers, request.text())) return html(400, notOneClickPage());
      await deps.unsubscribes.unsubscribe(token);
      return html(200, donePage());
    },
  } satisfies HandlersFor<typeof unsubscribeRoutes>;
}
