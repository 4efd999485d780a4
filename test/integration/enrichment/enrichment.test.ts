import { Webhook } from 'standardwebhooks';
import { type Receiver, startReceiver } from '../../support/receiver';
import { type TestStack, createKey, signUp } from '../../support/test-stack';
import { type Workspace, createList, importLeads, leadsOf, leadsStack } from '../leads/helpers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../shared/time/clock';
import { enrichmentHelpers, showLogs } from './world';

/**
 * Enrichment over real HTTP: DynamoDB Local, the SQS emulator, the sandbox enrichment providers
 * (Hunter, Prospeo and Lusha protocols) and the user-webhook worker for the completion event. The
 * API: balance, count, errors, async and sync jobs, the waterfall, phones, duplicates, the
 * completion webhook. Races and the sweeper: enrichment-races.test.ts; the worker: enrichment-worker.test.ts.
 */
describe('enrichment with credits', () => {
  const clock = new ManualClock('2026-11-24T09:00:00.000Z');
  let stack: TestStack;
  let alice: Workspace;
  let bob: Workspace;
  let receiver: Receiver;
  const { grant, credits, enrich, count, job, rule, peopleList, workspaceWith } = enrichmentHelpers(() => stack, clock);

  beforeAll(async () => {
    ({ stack, alice, bob } = await leadsStack({ clock, settings: { webhookRetrySchedule: [0, 0], webhookTimeoutMs: 2000 } }));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    showLogs(stack);
    await receiver?.stop();
    await stack?.stop();
  });

  it('starts a workspace with 0 credits; a grant shows in the balance and the ledger', async () => {
    expect(await credits(bob)).toEqual({ success: true, balance: 0, ledger: [], next_cursor: null });
    await grant(bob.workspaceId, 40);
    const after = await credits(bob);
    expect(after.balance).toBe(40);
    expect(after.ledger).toEqual([{ id: expect.any(Number), type: 'grant', amount: 40, reason: 'test grant', job_id: null, created_at: '2026-11-24T09:00:00.000Z' }]);
  });

  it('counts prospects without an email, with filters, and answers the spec errors', async () => {
    await grant(alice.workspaceId, 100);
    const list = await peopleList(alice, 'countlist', { withDomain: 3, bare: 2, emailed: 2 });
    expect((await count(alice, list.id)).body).toEqual({
      success: true,
      enrichment_type: 'FIND_EMAIL',
      unenriched_count: 5,
      cost_per_lead: 3,
      total_cost: 15,
      available_credits: 100,
      has_enough_credits: true,
    });
    expect((await count(alice, list.id, 'enrichment_type=FIND_PHONE&company_name=acme')).body).toMatchObject({ unenriched_count: 3, cost_per_lead: 30, total_cost: 90, has_enough_credits: true });
    expect((await count(alice, list.id, 'enrichment_type=FIND_PHONE')).body).toMatchObject({ unenriched_count: 7, total_cost: 210, has_enough_credits: false });
    // The three values exactly as the contract spells them (as search_type is).
    for (const type of ['FIND_FAX', 'find_email', ' FIND_EMAIL']) {
      const bad = await count(alice, list.id, `enrichment_type=${encodeURIComponent(type)}`);
      expect([bad.status, bad.body], type).toEqual([400, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }]);
    }
    const companies = await createList(stack, alice, 'companies', 'COMPANY');
    const notPeople = await count(alice, companies.id);
    expect([notPeople.status, notPeople.body]).toEqual([400, { error: 'Email/phone enrichment is only available for people lists' }]);
    const missing = await count(alice, 999_999_999);
    expect([missing.status, missing.body]).toEqual([404, { error: 'Lead list not found' }]);
    // The list is checked first, as list-leads does: an unknown list with a bad type is a 404 too.
    for (const [response, label] of [
      [await count(alice, 999_999_999, 'enrichment_type=FIND_FAX'), 'count'],
      [await enrich(alice, 999_999_999, { enrichment_type: 'FIND_FAX' }), 'start'],
    ] as const) {
      expect([response.status, response.body], label).toEqual([404, { error: 'Lead list not found' }]);
    }
    // Another workspace's list is unknown to bob.
    expect((await count(bob, list.id)).status).toBe(404);
    const refusedPost = await enrich(alice, companies.id, {});
    expect([refusedPost.status, refusedPost.body]).toEqual([400, { error: 'Email/phone enrichment is only available for people lists' }]);
  });

  it('refuses bad requests with 400 and charges nothing', async () => {
    const list = await peopleList(alice, 'badreq', { withDomain: 4 });
    const before = await credits(alice);
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ enrichment_type: 'FIND_FAX' }, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }],
      [{ enrichment_type: 'find_phone' }, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }],
      // Empty in a body is a value (it ran, and charged, FIND_EMAIL before 2026-11-28 night).
      [{ enrichment_type: '' }, { error: 'enrichment_type must be FIND_EMAIL, FIND_EMAIL_WATERFALL, or FIND_PHONE' }],
      [{ mode: 'later' }, { error: "mode must be 'async' or 'sync'" }],
      [{ mode: 'sync', prospect_limit: 26 }, { error: 'prospect_limit must be at most 25 in sync mode' }],
      [{ prospect_limit: 10_001 }, { error: 'prospect_limit must be at most 10000' }],
      [{ prospect_limit: 0 }, { error: 'prospect_limit must be a positive integer' }],
      [{ mode: 'sync', webhook_url: 'https://example.com/hook' }, { error: 'webhook_url is only available in async mode' }],
      [{ webhook_url: 'https://169.254.169.254/latest' }, { error: 'webhook_url must not point to a private, loopback, link-local or reserved address' }],
      [{ enrichment_type: 'FIND_PHONE' }, { error: 'Insufficient credits', details: `120 credits needed (4 × 30), ${before.balance} available` }],
      // A bad selection gets add-to-campaign's answers (other texts before 2026-11-29).
      [{ filters: ['cto'] }, { error: 'filters must be an object of filter name -> value or list of values' }],
      [{ filters: { page: "2" } }, { error: `Unknown filter 'page'. Filters of PEOPLE lists: first_name, last_name, email, phone_number, network_profile_url, job_title, location, headline, industry, company_name, company_industry, company_location, company_size, company_website_url` }],
      [{ filters: { shoe_size: '44' } }, { error: `Unknown filter 'shoe_size'. Filters of PEOPLE lists: first_name, last_name, email, phone_number, network_profile_url, job_title, location, headline, industry, company_name, company_industry, company_location, company_size, company_website_url` }],
      [{ filters: { job_title: 7 } }, { error: 'Filter job_title must be a string or a list of strings' }],
      [{ sort_field: 3 }, { error: 'sort_field must be one of: id, first_name, last_name, job_title, location, created_at' }],
      [{ sort_direction: true }, { error: "sort_direction must be 'asc' or 'desc'" }],
      // A misspelt field is named, not ignored: the request would have run (and charged) FIND_EMAIL.
      [
        { enrichment_typ: 'FIND_PHONE' },
        { error: 'enrichment_typ is not a field of the enrichment request (fields: enrichment_type, prospect_limit, mode, webhook_url, filters, sort_field, sort_direction)' },
      ],
    ];
    for (const [body, expected] of cases) {
      const response = await enrich(alice, list.id, body);
      expect([response.status, response.body], JSON.stringify(body)).toEqual([400, expected]);
    }
    expect(await credits(alice)).toEqual(before);
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.status)).toEqual(['NEW', 'NEW', 'NEW', 'NEW']);
  });

  it('async FIND_EMAIL: charges up front, shows Loading…, writes found emails, keeps the charge of a searched lead', async () => {
    const list = await peopleList(alice, 'asynclist', { withDomain: 2, bare: 1 });
    const before = (await credits(alice)).balance;
    const started = await enrich(alice, list.id, {});
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      success: true,
      mode: 'async',
      enrichment_type: 'FIND_EMAIL',
      enriched_count: 3,
      credits_deducted: 9,
      remaining_credits: before - 9,
      webhook_url: null,
      message: `Enrichment started in background. Follow it at /api/v1/public/enrichment-jobs/${started.body.job_id}/`,
      job_id: expect.any(Number),
    });
    expect((await leadsOf(stack, alice, list.id)).prospects?.map((p) => p.status)).toEqual(['Loading…', 'Loading…', 'Loading…']);
    // Being enriched: neither counted nor selected again.
    expect((await count(alice, list.id)).body.unenriched_count).toBe(0);
    expect((await job(alice, started.body.job_id)).status).toBe('RUNNING');

    await stack.drain('enrichment');
    const page = await leadsOf(stack, alice, list.id);
    expect(page.prospects?.map((p) => [p.first_name, p.email, p.status])).toEqual([
      ['Ada0', 'ada0.asynclist@asynclist.example', 'NEW'],
      ['Ada1', 'ada1.asynclist@asynclist.example', 'NEW'],
      ['Bo0', '', 'NEW'],
    ]);
    expect(await job(alice, started.body.job_id)).toEqual({
      id: started.body.job_id,
      list_id: list.id,
      enrichment_type: 'FIND_EMAIL',
      mode: 'async',
      status: 'COMPLETED',
      total_count: 3,
      queued_count: 0,
      found_count: 2,
      not_found_count: 1,
      duplicate_count: 0,
      failed_count: 0,
      skipped_count: 0,
      credits_charged: 9,
      credits_refunded: 0,
      webhook_url: null,
      created_at: '2026-11-24T09:00:00.000Z',
      completed_at: '2026-11-24T09:00:00.000Z',
    });
    expect((await credits(alice)).balance).toBe(before - 9);
    // The bare prospect can be enriched again (it has no email); the found ones not.
    expect((await count(alice, list.id)).body.unenriched_count).toBe(1);
  });

  it('takes an optional field given null as its default, as if left out (the real product documents webhook_url null)', async () => {
    const list = await peopleList(alice, 'nullfields', { withDomain: 1, bare: 1 });
    const before = (await credits(alice)).balance;
    const nulls = { enrichment_type: null, prospect_limit: null, mode: null, webhook_url: null, filters: null, sort_field: null, sort_direction: null };
    const started = await enrich(alice, list.id, nulls);
    expect(started.body).toEqual({
      success: true,
      mode: 'async',
      enrichment_type: 'FIND_EMAIL',
      enriched_count: 2,
      credits_deducted: 6,
      remaining_credits: before - 6,
      webhook_url: null,
      message: `Enrichment started in background. Follow it at /api/v1/public/enrichment-jobs/${started.body.job_id}/`,
      job_id: expect.any(Number),
    });
    await stack.drain('enrichment');
  });

  it('sync FIND_EMAIL_WATERFALL: tries finders in order, stops at the first verified email, refunds not found and provider failures', async () => {
    const list = await peopleList(alice, 'waterfall', { withDomain: 3, bare: 1 });
    await rule({ match: 'Ada0 waterfall', provider: 'hunter', outcome: 'not_found' });
    await rule({ match: 'Ada1 waterfall', provider: 'hunter', outcome: 'error' });
    await rule({ match: 'Ada1 waterfall', provider: 'prospeo', outcome: 'error' });
    const callsBefore = ((await (await fetch(`${stack.enrichment.url}/_sandbox/enrichment/calls`)).json()) as { calls: { provider: string; name: string }[] }).calls.length;
    const before = (await credits(alice)).balance;
    // The ledger is newest first by time, then by entry id: a later millisecond than the grants before it.
    clock.advance(1);
    const response = await enrich(alice, list.id, { mode: 'sync', enrichment_type: 'FIND_EMAIL_WATERFALL' });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      success: true,
      mode: 'sync',
      enrichment_type: 'FIND_EMAIL_WATERFALL',
      total_count: 4,
      success_count: 2,
      credits_deducted: 12,
      remaining_credits: before - 12,
      results: [
        { id: expect.any(Number), first_name: 'Ada0', last_name: 'waterfall', success: true, status: 'found', email: 'ada0.waterfall@waterfall.example', verification_status: 'verified', provider: 'prospeo' },
        { id: expect.any(Number), first_name: 'Ada1', last_name: 'waterfall', success: false, status: 'failed', email: null, verification_status: null, provider: null },
        { id: expect.any(Number), first_name: 'Ada2', last_name: 'waterfall', success: true, status: 'found', email: 'ada2.waterfall@waterfall.example', verification_status: 'verified', provider: 'hunter' },
        { id: expect.any(Number), first_name: 'Bo0', last_name: 'waterfall', success: false, status: 'not_found', email: null, verification_status: null, provider: null },
      ],
    });
    const calls = ((await (await fetch(`${stack.enrichment.url}/_sandbox/enrichment/calls`)).json()) as { calls: { provider: string; name: string }[] }).calls.slice(callsBefore);
    const of = (name: string) => calls.filter((call) => call.name === name).map((call) => call.provider);
    expect(of('Ada0 waterfall')).toEqual(['hunter', 'prospeo']);
    expect(of('Ada1 waterfall')).toEqual(['hunter', 'hunter', 'hunter', 'prospeo', 'prospeo', 'prospeo']);
    expect(of('Ada2 waterfall')).toEqual(['hunter']);
    const ledger = (await credits(alice)).ledger;
    // The sync answer names no job (the real product's fields); its ledger entries do.
    const jobId = ledger[0]?.job_id;
    expect(jobId).toEqual(expect.any(Number));
    expect(ledger.slice(0, 2).map((entry) => [entry.type, entry.amount, entry.job_id])).toEqual([
      ['refund', 12, jobId],
      ['debit', -24, jobId],
    ]);
  });

  it('sandbox rules by profile URL decide FIND_EMAIL too: Hunter is given the profile handle, also without a company', async () => {
    const ws = await workspaceWith(30);
    const list = await createList(stack, ws, 'byurl');
    await importLeads(stack, ws, list.id, {
      leads: [
        { first_name: 'Url', last_name: 'Rule', network_profile_url: 'https://www.linkedin.com/in/urlrule-x1', company_name: 'Ur', company_website_url: 'https://ur.example' },
        { first_name: 'No', last_name: 'Company', network_profile_url: 'https://www.linkedin.com/in/nocompany-x1' },
        { first_name: 'Plain', last_name: 'Nobody', network_profile_url: 'https://www.linkedin.com/in/plain-x1' },
      ],
    });
    expect((await rule({ match: 'https://www.linkedin.com/in/urlrule-x1', outcome: 'not_found' })).status).toBe(200);
    expect((await rule({ match: 'https://linkedin.com/in/NoCompany-x1/', outcome: 'found', email: 'no.company@found.example' })).status).toBe(200);
    const response = await enrich(ws, list.id, { mode: 'sync' });
    expect(response.body.results).toEqual([
      expect.objectContaining({ first_name: 'Url', success: false, status: 'not_found', email: null }),
      expect.objectContaining({ first_name: 'No', success: true, status: 'found', email: 'no.company@found.example', provider: 'hunter' }),
      // No company and no rule: Hunter is asked by the handle and finds nothing.
      expect.objectContaining({ first_name: 'Plain', success: false, status: 'not_found', email: null }),
    ]);
  });

  it('refunds a prospect FIND_EMAIL has nothing to search by (no company, a profile URL without a handle): no provider was asked', async () => {
    const ws = await workspaceWith(30);
    const list = await createList(stack, ws, 'nohandle');
    await importLeads(stack, ws, list.id, {
      leads: [{ first_name: 'Ned', last_name: 'Sales', network_profile_url: 'https://www.linkedin.com/sales/lead/ACwAAB12345,NAME_SEARCH,xyz' }],
    });
    const response = await enrich(ws, list.id, { mode: 'sync' });
    expect(response.body).toMatchObject({ total_count: 1, success_count: 0, credits_deducted: 0, remaining_credits: 30 });
    expect((response.body.results as Record<string, unknown>[]).map((r) => [r.first_name, r.status])).toEqual([['Ned', 'failed']]);
  });

  it('keeps a found email trimmed and lower-cased, and takes a value that is no email address as not found', async () => {
    const ws = await workspaceWith(30);
    const list = await createList(stack, ws, 'odd finds');
    await importLeads(stack, ws, list.id, {
      leads: ['Pat1', 'Pat2'].map((first) => ({
        first_name: first,
        last_name: 'Odd',
        network_profile_url: `https://www.linkedin.com/in/${first.toLowerCase()}-odd`,
        company_name: 'Pat',
        company_website_url: 'https://pat.example',
      })),
    });
    await rule({ match: 'Pat1 Odd', outcome: 'found', email: '  Pat.ONE@Pat.Example  ' });
    await rule({ match: 'Pat2 Odd', outcome: 'found', email: 'not-an-email' });
    const response = await enrich(ws, list.id, { mode: 'sync' });
    expect((response.body.results as Record<string, unknown>[]).map((r) => [r.first_name, r.status, r.email])).toEqual([
      ['Pat1', 'found', 'pat.one@pat.example'],
      ['Pat2', 'not_found', null],
    ]);
    expect((await leadsOf(stack, ws, list.id)).prospects?.map((p) => [p.first_name, p.email])).toEqual([
      ['Pat1', 'pat.one@pat.example'],
      ['Pat2', ''],
    ]);
    // The same email imported elsewhere is the same person.
    const other = await createList(stack, ws, 'odd finds again');
    expect((await importLeads(stack, ws, other.id, { leads: [{ first_name: 'Pat1', last_name: 'Odd', email: 'pat.one@pat.example' }] })).created).toBe(0);
  });

  it('FIND_PHONE refunds not found; a found email another prospect has is a duplicate, charged like not found', async () => {
    await grant(alice.workspaceId, 200);
    const list = await peopleList(alice, 'phones', { withDomain: 2 });
    await rule({ match: 'Ada0 phones', provider: 'lusha', outcome: 'found', phone: '+31 6 1234 5678' });
    const before = (await credits(alice)).balance;
    const phones = await enrich(alice, list.id, { mode: 'sync', enrichment_type: 'FIND_PHONE' });
    expect(phones.body).toMatchObject({ total_count: 2, success_count: 1, credits_deducted: 30, remaining_credits: before - 30 });
    expect((phones.body.results as Record<string, unknown>[]).map((r) => [r.first_name, r.status, r.phone_number])).toEqual([
      ['Ada0', 'found', '+31 6 1234 5678'],
      ['Ada1', 'not_found', null],
    ]);

    const dupes = await peopleList(alice, 'dupes', { withDomain: 1 });
    await importLeads(stack, alice, dupes.id, { leads: [{ first_name: 'Zed', last_name: 'Owner', email: 'ada0.dupes@dupes.example' }] });
    const owner = (await leadsOf(stack, alice, dupes.id)).prospects?.find((p) => p.first_name === 'Zed');
    const dup = await enrich(alice, dupes.id, { mode: 'sync' });
    expect((dup.body.results as Record<string, unknown>[]).map((r) => [r.status, r.duplicate_of, r.email])).toEqual([['duplicate', owner?.id, null]]);
    expect(dup.body.credits_deducted).toBe(3);
  });


  it('FIND_PHONE counts and searches a prospect whose imported phone is no number; a found phone that is no number is not found', async () => {
    await grant(alice.workspaceId, 200);
    const list = await createList(stack, alice, 'odd phones');
    const person = (first: string, phone?: string) => ({
      first_name: first,
      last_name: 'Oddphone',
      network_profile_url: `https://www.linkedin.com/in/oddphone-${first.toLowerCase()}`,
      company_name: 'Acme Oddphone',
      company_website_url: 'https://www.oddphone.example',
      ...(phone === undefined ? {} : { phone_number: phone }),
    });
    await importLeads(stack, alice, list.id, { leads: [person('Nia', 'n/a'), person('Ola', '+1 (555) 010-0199 ext. 12'), person('Pia')] });
    // Nia's "n/a" is no phone: counted and searched like Pia's none; Ola's number is one.
    expect((await count(alice, list.id, 'enrichment_type=FIND_PHONE')).body).toMatchObject({ unenriched_count: 2, total_cost: 60 });
    await rule({ match: 'Nia Oddphone', provider: 'lusha', outcome: 'found', phone: '+44 20 7946 0958' });
    await rule({ match: 'Pia Oddphone', provider: 'lusha', outcome: 'found', phone: 'call the office' });
    const before = (await credits(alice)).balance;
    const phones = await enrich(alice, list.id, { mode: 'sync', enrichment_type: 'FIND_PHONE' });
    expect(phones.body).toMatchObject({ total_count: 2, success_count: 1, credits_deducted: 30, remaining_credits: before - 30 });
    expect((phones.body.results as Record<string, unknown>[]).map((r) => [r.first_name, r.status, r.phone_number])).toEqual([
      ['Nia', 'found', '+44 20 7946 0958'],
      ['Pia', 'not_found', null],
    ]);
    const stored = (await leadsOf(stack, alice, list.id)).prospects?.map((p) => [p.first_name, p.phone_number]);
    expect(stored?.sort()).toEqual([
      ['Nia', '+44 20 7946 0958'],
      ['Ola', '+1 (555) 010-0199 ext. 12'],
      ['Pia', ''],
    ]);
  });

  it('sends the signed completion event to webhook_url, retried after a failure', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(ws.workspaceId, 30);
    const list = await peopleList(ws, 'hooked', { withDomain: 1 });
    const hook = `${receiver.url}/enrichment-done`;
    const set = await stack.call<{ signing_secret: string }>('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/inbox` } });
    expect(set.status).toBe(200);
    const started = await enrich(ws, list.id, { webhook_url: hook });
    expect(started.body).toMatchObject({ webhook_url: hook, message: `Enrichment started in background. Results will be sent to ${hook}` });
    await stack.drain('enrichment');
    receiver.plan({ status: 503 });
    await stack.drain('webhooks');
    const deliveries = receiver.requests.filter((r) => r.path === '/enrichment-done');
    expect(deliveries).toHaveLength(2);
    const last = deliveries[1] as (typeof deliveries)[number];
    // Signed as Standard Webhooks with the user's secret (at the stack's clock, so compared, not verified against now).
    const at = new Date(Number(last.headers['webhook-timestamp']) * 1000);
    expect(last.headers['webhook-signature']).toBe(new Webhook(set.body.signing_secret).sign(String(last.headers['webhook-id']), at, last.body));
    const payload = JSON.parse(last.body) as Record<string, unknown>;
    expect(payload).toMatchObject({ event: 'enrichment_completed', job: { id: started.body.job_id, status: 'COMPLETED', found_count: 1, total_count: 1 } });
    expect(Object.keys(payload).sort()).toEqual(['created_at', 'event', 'id', 'job', 'workspace_id']);
    expect(payload.workspace_id).toBe(ws.workspaceId);
    // Isolation: another workspace cannot read the job.
    const other = await stack.call('GET', `/public/enrichment-jobs/${started.body.job_id}/`, { apiKey: bob.key });
    expect([other.status, other.body]).toEqual([404, { error: 'Enrichment job not found' }]);
  });

  it('accepts webhook_url from a user without webhook settings: the first event creates their signing secret, which their next webhook PUT shows', async () => {
    const user = await signUp(stack);
    const ws: Workspace = { key: (await createKey(stack, user)).key, workspaceId: user.workspaceId };
    await grant(ws.workspaceId, 30);
    const list = await peopleList(ws, 'nosettings', { withDomain: 1 });
    const hook = `${receiver.url}/no-settings-done`;
    const started = await enrich(ws, list.id, { webhook_url: hook });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ webhook_url: hook, enriched_count: 1 });
    await stack.drain('enrichment');
    await stack.drain('webhooks');
    const [delivery] = receiver.requests.filter((r) => r.path === '/no-settings-done');
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ event: 'enrichment_completed', job: { id: started.body.job_id, status: 'COMPLETED' } });
    // The secret exists (no URL), not shown yet: the next PUT of the webhook shows it, once, and it
    // is the one the event was signed with.
    const settings = await stack.call<Record<string, unknown>>('GET', '/user/webhook/', { token: user.token });
    expect(settings.body).toMatchObject({ webhook_url: null, has_signing_secret: true });
    const set = await stack.call<{ signing_secret?: string }>('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/inbox` } });
    expect(set.status).toBe(200);
    const secret = set.body.signing_secret as string;
    expect(secret).toMatch(/^whsec_/);
    const at = new Date(Number(delivery?.headers['webhook-timestamp']) * 1000);
    expect(delivery?.headers['webhook-signature']).toBe(new Webhook(secret).sign(String(delivery?.headers['webhook-id']), at, delivery?.body as string));
    const again = await stack.call<{ signing_secret?: string }>('PUT', '/user/webhook/', { token: user.token, body: { webhook_url: `${receiver.url}/inbox` } });
    expect(again.body.signing_secret).toBeUndefined();
  });
});
