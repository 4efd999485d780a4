import { describe, expect, it } from 'vitest';
import { classifyFailure, isLostAnswer, namesTheProspect } from '../../../shared/domain/engine/provider-answers';
import { ProviderFailure } from '../../../shared/domain/providers/provider';

/** A provider error answer: its documented HTTP status and `type` (infra/local/sandbox-provider.ts PROVIDER_ERROR_STATUS). */
const answer = (status: number, type?: string) => new ProviderFailure('http', `HTTP ${status}`, status, type);

describe('sorting provider answers', () => {
  it.each([
    ['errors/too_many_requests', 429],
    ['errors/unexpected_error', 500],
    ['errors/provider_error', 500],
    ['errors/service_unavailable', 503],
    ['errors/network_down', 503],
    ['errors/request_timeout', 504],
  ])('%s (%i) is transient', (type, status) => {
    expect(classifyFailure(answer(status, type))).toEqual({ kind: 'transient', reason: type });
  });

  it.each([
    ['errors/disconnected_account', 401],
    ['errors/invalid_credentials', 401],
    ['errors/expired_credentials', 401],
    ['errors/account_restricted', 403],
    ['errors/feature_not_subscribed', 403],
  ])('%s (%i) pauses the account until it is active again', (type, status) => {
    expect(classifyFailure(answer(status, type))).toEqual({ kind: 'account', reason: type, quota: false });
  });

  it.each(['errors/limit_exceeded', 'errors/cannot_resend_yet', 'errors/insufficient_credits', 'errors/not_allowed_inmail'])(
    '%s (422) pauses the account for its quota',
    (type) => {
      expect(classifyFailure(answer(422, type))).toEqual({ kind: 'account', reason: type, quota: true });
    },
  );

  it.each(['errors/invalid_recipient', 'errors/cannot_invite_attendee', 'errors/blocked_recipient'])('%s (422) ends the prospect’s sequence', (type) => {
    expect(classifyFailure(answer(422, type))).toEqual({ kind: 'prospect', reason: type, bounce: false });
  });

  it('sorts the answers that are not failures of the send', () => {
    expect(classifyFailure(answer(422, 'errors/recipient_rejected'))).toEqual({ kind: 'prospect', reason: 'errors/recipient_rejected', bounce: true });
    expect(classifyFailure(answer(422, 'errors/action_already_performed'))).toEqual({ kind: 'already_connected', reason: 'errors/action_already_performed' });
    expect(classifyFailure(answer(422, 'errors/already_invited_recently'))).toEqual({ kind: 'already_invited', reason: 'errors/already_invited_recently' });
    expect(classifyFailure(answer(422, 'errors/no_connection_with_recipient'))).toEqual({ kind: 'not_connected', reason: 'errors/no_connection_with_recipient' });
  });

  it('treats timeouts and unreachable providers as transient', () => {
    expect(classifyFailure(new ProviderFailure('timeout', 'The provider did not answer within 10 s'))).toEqual({ kind: 'transient', reason: 'timeout' });
    expect(classifyFailure(new ProviderFailure('network', 'ECONNREFUSED'))).toEqual({ kind: 'transient', reason: 'network' });
  });

  it('sorts statuses without a known type', () => {
    expect(classifyFailure(answer(429))).toEqual({ kind: 'transient', reason: 'HTTP 429' });
    expect(classifyFailure(answer(500))).toEqual({ kind: 'transient', reason: 'HTTP 500' });
    expect(classifyFailure(answer(503))).toEqual({ kind: 'transient', reason: 'HTTP 503' });
    expect(classifyFailure(answer(408))).toEqual({ kind: 'transient', reason: 'HTTP 408' });
    expect(classifyFailure(answer(401))).toEqual({ kind: 'account', reason: 'HTTP 401', quota: false });
    expect(classifyFailure(answer(403, 'errors/something_new'))).toEqual({ kind: 'account', reason: 'errors/something_new', quota: false });
    expect(classifyFailure(answer(404))).toEqual({ kind: 'prospect', reason: 'profile not found', bounce: false });
    expect(classifyFailure(answer(404, 'errors/resource_not_found'))).toEqual({ kind: 'prospect', reason: 'errors/resource_not_found', bounce: false });
    expect(classifyFailure(answer(400, 'errors/invalid_parameters'))).toEqual({ kind: 'prospect', reason: 'errors/invalid_parameters', bounce: false });
    expect(classifyFailure(answer(422))).toEqual({ kind: 'prospect', reason: 'HTTP 422', bounce: false });
  });

  it('treats an error that is not a provider failure as transient', () => {
    expect(classifyFailure(new TypeError('fetch failed'))).toEqual({ kind: 'transient', reason: 'unexpected error calling the provider' });
    expect(classifyFailure('boom')).toEqual({ kind: 'transient', reason: 'unexpected error calling the provider' });
  });

  it.each([
    ['no answer in time', new ProviderFailure('timeout', 'The provider did not answer within 8000 ms'), true],
    ['a connection lost', new ProviderFailure('network', 'fetch failed'), true],
    ['a gateway that answered for the provider (502)', answer(502), true],
    ['a gateway timeout (504)', answer(504, 'errors/request_timeout'), true],
    ['the provider itself refusing for now (503)', answer(503, 'errors/service_unavailable'), false],
    ['a rate limit (429)', answer(429, 'errors/too_many_requests'), false],
    ['a refusal (422)', answer(422, 'errors/no_connection_with_recipient'), false],
    ['not a provider failure', new Error('boom'), false],
  ])('a send that failed with %s may have gone out: %s', (_, error, lost) => {
    expect(isLostAnswer(error)).toBe(lost);
  });

  it.each([
    ['not a connection (422)', answer(422, 'errors/no_connection_with_recipient'), true],
    ['already connected (422)', answer(422, 'errors/action_already_performed'), true],
    ['an invitation refused for this attendee (422)', answer(422, 'errors/cannot_invite_attendee'), true],
    ['an address rejected (422)', answer(422, 'errors/recipient_rejected'), true],
    ['a 404 without a type (a base URL, an account)', answer(404), false],
    ['a 404 naming no prospect', answer(404, 'errors/resource_not_found'), false],
    ['any other 4xx (our request)', answer(400, 'errors/invalid_parameters'), false],
    ['an account problem (401)', answer(401, 'errors/disconnected_account'), false],
    ['an outage (503)', answer(503, 'errors/service_unavailable'), false],
    ['no answer in time', new ProviderFailure('timeout', 'The provider did not answer within 8000 ms'), false],
  ])('a failure that is %s names the prospect as its reason (pulls a wait forward): %s', (_, error, named) => {
    expect(namesTheProspect(error)).toBe(named);
  });
});
