import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnsubscribeTokens } from '../../../shared/security/unsubscribe-token';
import { ManualClock } from '../../../shared/time/clock';
import type { Workspace } from '../leads/helpers';
import { leadsStack } from '../leads/helpers';
import type { TestStack } from '../../support/test-stack';
import { type EngineWorld, actionsOf, activate, advance, campaignWith, outcomesOf, prospectStatuses, prospectsIn, sandboxSent } from './helpers';

/**
 * Unsubscribe links and the workspace suppression list, played with the injected clock: the link
 * and header an email carries, the GET page that changes nothing, the one-click POST that stops
 * the sequence and suppresses the address, the skip in another campaign (and not in another
 * workspace), hard bounces, a tampered token and the per-IP limit. The suppression API is in
 * suppressions.test.ts.
 */
describe('unsubscribes and suppression', () => {
  // Monday 2026-11-23, 10:00 in Amsterdam (campaigns send Monday to Friday 09:00-17:00 there).
  const clock = new ManualClock('2026-11-23T09:00:00.000Z');
  const LIMIT = 20;
  let stack: TestStack;
  let alice: EngineWorld;
  let bob: EngineWorld;

  const register = async (ws: Workspace, providerAccountId: string, type: 'MAIL' | 'LINKEDIN', create: boolean) => {
    if (create) await stack.provider.control.createAccount({ id: providerAccountId, type, name: providerAccountId });
    const response = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', { apiKey: ws.key, body: { provider_account_id: providerAccountId } });
    expect(response.status, response.text).toBe(201);
    return response.body.account.id;
  };

  beforeAll(async () => {
    const started = await leadsStack({ clock, settings: { unsubscribeRateLimitPerMinute: LIMIT } });
    stack = started.stack;
    alice = { stack, ws: started.alice, other: started.bob, mailbox: await register(started.alice, 'sbx-mailbox-dev', 'MAIL', false), network: await register(started.alice, 'sbx-network-dev', 'LINKEDIN', false) };
    bob = { stack, ws: started.bob, other: started.alice, mailbox: await register(started.bob, 'sbx-bob-mail', 'MAIL', true), network: await register(started.bob, 'sbx-bob-network', 'LINKEDIN', true) };
  });
  afterAll(async () => stack?.stop());

  /** The link of an email to `email`; without it, a link as sent before 2026-11-28 (no address), which still works. */
  const linkOf = (ws: Workspace, campaignId: number, prospectId: number, email?: string) =>
    `${stack.baseUrl}/api/v1/unsubscribe/${createUnsubscribeTokens(stack.settings.unsubscribeSecret as string).sign({ workspaceId: ws.workspaceId, campaignId, prospectId, ...(email ? { email } : {}) })}`;
  const emailsTo = async (address: string) => (await sandboxSent(stack)).filter((item) => item.kind === 'email' && item.to === address);
  const oneClick = (url: string, body = 'List-Unsubscribe=One-Click', type = 'application/x-www-form-urlencoded') =>
    fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
  const suppressionsOf = async (ws: Workspace) => {
    const response = await stack.call<{ suppressions: Record<string, unknown>[] }>('GET', '/public/suppressions/', { apiKey: ws.key });
    expect(response.status, response.text).toBe(200);
    return response.body.suppressions;
  };
  const outcomeSummary = async (campaignId: number) => (await outcomesOf(stack, campaignId)).map((o) => `${o.prospectId} ${o.stepType} ${o.outcome}${o.reason ? ` (${o.reason})` : ''}`);

  let campaignId: number;
  let ada: number;
  let alan: number;

  it('puts the unsubscribe link in the body and the Unscribe-List header on an email step with add_unsubscribe', async () => {
    const campaign = await campaignWith(alice, 'Unsubscribe demo', [
      { step_type: 'EMAIL', subject_line: 'Hello {{first_name}}', message_template: '<p>Hi {{first_name}}</p>', add_unsubscribe: true },
      { step_type: 'EMAIL', subject_line: 'Again {{first_name}}', message_template: '<p>Hi again</p>', delay_in_hours: 24 },
    ]);
    campaignId = campaign.id;
    [ada, alan] = (await prospectsIn(alice, campaignId, [
      { first_name: 'Ada', email: 'Ada@Example.com' },
      { first_name: 'Alan', email: 'alan@turing.example' },
    ])) as [number, number];
    await activate(alice, campaignId);

    const [toAda] = await emailsTo('ada@example.com');
    // The link names the address the email went to, sealed (not readable in the URL).
    const link = linkOf(alice.ws, campaignId, ada, 'ada@example.com');
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/v1/unsubscribe/u2\\.${alice.ws.workspaceId}\\.${campaignId}\\.${ada}\\.[A-Za-z0-9_-]{58}$`));
    expect(link).not.toContain('example');
    expect(toAda).toMatchObject({
      subject: 'Hello Ada',
      text: `<p>Hi Ada</p><p style="font-size:12px;color:#777">If you would rather not hear from us, <a href="${link}">unsubscribe</a>.</p>`,
      headers: [{ name: 'Unscribe-List', value: `<${link}>` }],
    });
    // The provider's request log shows the headers the email was sent with.
    const logged = (await stack.provider.control.requests()).filter((request) => request.path === '/api/v1/emails');
    expect(logged.map((request) => request.emailHeaders)).toContainEqual([{ name: 'Unscribe-List', value: `<${link}>` }]);
  });

  it('shows a confirmation page on GET and changes nothing: the next step still goes out', async () => {
    const page = await fetch(linkOf(alice.ws, campaignId, ada));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const text = await page.text();
    expect(text).toContain('<form method="post">');
    expect(text).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click">');
    // A link checker's HEAD: the page's status and headers, no body, nothing changed.
    const head = await fetch(linkOf(alice.ws, campaignId, ada), { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), head.headers.get('content-length'), await head.text()]).toEqual([
      200,
      'text/html; charset=utf-8',
      String(Buffer.byteLength(text)),
      '',
    ]);
    expect(await suppressionsOf(alice.ws)).toEqual([]);
    expect((await prospectStatuses(alice, campaignId))[ada]).toEqual({ status: 'IN_PROGRESS', last_error: null });
  });

  it('unsubscribes at once on the one-click POST: UNSUBSCRIBED, sequence stopped, address suppressed', async () => {
    // A link without an address (as sent before 2026-11-28): the prospect's address is suppressed.
    const response = await oneClick(linkOf(alice.ws, campaignId, alan));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<h1>You are unsubscribed</h1>');
    expect((await actionsOf(stack, campaignId)).map((action) => action.prospectId)).toEqual([ada]);
    expect(await prospectStatuses(alice, campaignId)).toEqual({
      [ada]: { status: 'IN_PROGRESS', last_error: null },
      [alan]: { status: 'UNSUBSCRIBED', last_error: 'unsubscribed' },
    });
    expect(await suppressionsOf(alice.ws)).toEqual([
      {
        id: expect.any(Number),
        type: 'EMAIL',
        value: 'alan@turing.example',
        reason: 'UNSUBSCRIBED',
        prospect_id: alan,
        campaign_id: campaignId,
        created_at: '2026-11-23T09:00:00.000Z',
      },
    ]);
    // A second click (and the page's own form, multipart here) changes nothing more.
    const again = await fetch(linkOf(alice.ws, campaignId, alan), { method: 'POST', body: (() => {
      const form = new FormData();
      form.set('List-Unsubscribe', 'One-Click');
      return form;
    })() });
    expect(again.status).toBe(200);
    expect(await suppressionsOf(alice.ws)).toHaveLength(1);

    await advance(stack, clock, 24);
    expect((await emailsTo('ada@example.com')).map((email) => email.subject)).toEqual(['Hello Ada', 'Again Ada']);
    expect((await emailsTo('alan@turing.example')).map((email) => email.subject)).toEqual(['Hello Alan']);
    expect(await prospectStatuses(alice, campaignId)).toEqual({
      [ada]: { status: 'FINISHED', last_error: null },
      [alan]: { status: 'UNSUBSCRIBED', last_error: 'unsubscribed' },
    });
  });

  it('skips a suppressed address in another campaign of the workspace, and not in another workspace', async () => {
    const second = await campaignWith(alice, 'Second campaign', [
      { step_type: 'EMAIL', subject_line: 'Second {{first_name}}' },
      { step_type: 'EMAIL', subject_line: 'Second again {{first_name}}', delay_in_hours: 1 },
    ]);
    // Alan (unsubscribed) is imported into the second campaign: the same prospect, moved.
    const imported = await stack.call('POST', `/public/campaigns/${second.id}/import/`, {
      apiKey: alice.ws.key,
      body: { leads: [{ first_name: 'Alan', last_name: 'Turing', email: 'ALAN@turing.example', network_profile_url: 'https://www.linkedin.com/in/alan-second' }] },
    });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body).toEqual({ success: true, count: 1, created: 0, updated: 1, skipped: [] });
    // A whole domain suppressed by hand covers its addresses.
    const added = await stack.call('POST', '/public/suppressions/', { apiKey: alice.ws.key, body: { domains: ['Blocked.Example'] } });
    expect(added.status, added.text).toBe(200);
    const [grace, linus] = (await prospectsIn(alice, second.id, [
      { first_name: 'Grace', email: 'grace@blocked.example' },
      { first_name: 'Linus', email: 'linus@open.example' },
    ])) as [number, number];
    await activate(alice, second.id);
    await advance(stack, clock, 1);

    expect((await outcomeSummary(second.id)).sort()).toEqual(
      [
        `${alan} EMAIL SKIPPED (suppressed)`,
        `${alan} EMAIL SKIPPED (suppressed)`,
        `${grace} EMAIL SKIPPED (suppressed)`,
        `${grace} EMAIL SKIPPED (suppressed)`,
        `${linus} EMAIL SENT`,
        `${linus} EMAIL SENT`,
      ].sort(),
    );
    expect((await emailsTo('alan@turing.example')).map((email) => email.subject)).toEqual(['Hello Alan']);
    expect(await emailsTo('grace@blocked.example')).toEqual([]);
    expect((await emailsTo('linus@open.example')).map((email) => email.subject)).toEqual(['Second Linus', 'Second again Linus']);

    // Bob's workspace has its own list: the same address gets his email.
    const bobs = await campaignWith(bob, 'Bob campaign', [{ step_type: 'EMAIL', subject_line: 'From Bob' }]);
    await prospectsIn(bob, bobs.id, [{ first_name: 'Alan', email: 'alan@turing.example' }]);
    await activate(bob, bobs.id);
    expect((await emailsTo('alan@turing.example')).map((email) => email.subject)).toEqual(['Hello Alan', 'From Bob']);
    expect(await suppressionsOf(bob.ws)).toEqual([]);
  });

  it('suppresses an address whose email hard-bounced', async () => {
    const campaign = await campaignWith(alice, 'Bounce', [{ step_type: 'EMAIL', subject_line: 'Bounce' }]);
    const [bounced] = (await prospectsIn(alice, campaign.id, [{ email: 'gone@bounce.example' }])) as [number];
    await stack.provider.control.addFault({ kind: 'error', type: 'errors/recipient_rejected', path: '/api/v1/emails', times: 1 });
    await activate(alice, campaign.id);
    expect(await prospectStatuses(alice, campaign.id)).toEqual({ [bounced]: { status: 'BOUNCED', last_error: 'errors/recipient_rejected' } });
    expect((await suppressionsOf(alice.ws)).filter((entry) => entry.reason === 'HARD_BOUNCE')).toEqual([
      expect.objectContaining({ type: 'EMAIL', value: 'gone@bounce.example', prospect_id: bounced, campaign_id: campaign.id }),
    ]);
  });

  it('suppresses the address the email went to, not the one the prospect has since', async () => {
    const campaign = await campaignWith(alice, 'Changed address', [
      { step_type: 'EMAIL', subject_line: 'First', message_template: '<p>Hi</p>', add_unsubscribe: true },
      { step_type: 'EMAIL', subject_line: 'Second', delay_in_hours: 24 },
    ]);
    const profile = 'https://www.linkedin.com/in/hedy-changed';
    const [hedy] = (await prospectsIn(alice, campaign.id, [{ first_name: 'Hedy', email: 'hedy@old.example', network_profile_url: profile }])) as [number];
    await activate(alice, campaign.id);
    const [sent] = await emailsTo('hedy@old.example');
    const link = linkOf(alice.ws, campaign.id, hedy, 'hedy@old.example');
    expect(sent?.headers).toEqual([{ name: 'Unscribe-List', value: `<${link}>` }]);
    // The prospect's address changes after the email (a new import of the same profile).
    const changed = await stack.call('POST', `/public/campaigns/${campaign.id}/import/`, {
      apiKey: alice.ws.key,
      body: { leads: [{ first_name: 'Hedy', last_name: 'Lamarr', email: 'hedy@new.example', network_profile_url: profile }] },
    });
    expect(changed.body, changed.text).toMatchObject({ updated: 1 });

    expect((await oneClick(link)).status).toBe(200);
    const entries = (await suppressionsOf(alice.ws)).filter((entry) => entry.prospect_id === hedy);
    expect(entries).toEqual([expect.objectContaining({ type: 'EMAIL', value: 'hedy@old.example', reason: 'UNSUBSCRIBED', campaign_id: campaign.id })]);
    expect((await prospectStatuses(alice, campaign.id))[hedy]).toEqual({ status: 'UNSUBSCRIBED', last_error: 'unsubscribed' });
  });

  it('answers a tampered or malformed token, or a POST without the one-click body, with a page and changes nothing', async () => {
    const good = linkOf(alice.ws, campaignId, ada);
    const token = good.slice(good.lastIndexOf('/') + 1);
    const forged = `${stack.baseUrl}/api/v1/unsubscribe/${token.replace(`.${ada}.`, `.${alan}.`)}`;
    const flipped = `${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`;
    for (const url of [forged, flipped, `${stack.baseUrl}/api/v1/unsubscribe/not-a-token`, `${stack.baseUrl}/api/v1/unsubscribe/${'u1.'.repeat(80)}`]) {
      const page = await fetch(url);
      expect([page.status, page.headers.get('content-type')], url).toEqual([404, 'text/html; charset=utf-8']);
      expect(await page.text()).toContain('<h1>This unsubscribe link is not valid</h1>');
      expect((await fetch(url, { method: 'HEAD' })).status, url).toBe(404);
      expect((await oneClick(url)).status, url).toBe(404);
    }
    const wrongBody = await oneClick(good, 'List-Unsubscribe=Yes');
    expect(wrongBody.status).toBe(400);
    expect(await wrongBody.text()).toContain('<h1>Nothing was changed</h1>');
    expect((await oneClick(good, '')).status).toBe(400);
    expect((await prospectStatuses(alice, campaignId))[ada]).toEqual({ status: 'FINISHED', last_error: null });
    expect((await suppressionsOf(alice.ws)).map((entry) => entry.value).sort()).toEqual(['alan@turing.example', 'blocked.example', 'gone@bounce.example', 'hedy@old.example']);
  });

  it('limits requests per IP address: a 429 page past the limit, until the next minute', async () => {
    // A fresh window: the start of the next minute.
    clock.set(new Date(Math.ceil((clock.now().getTime() + 1) / 60_000) * 60_000 + 15_000).toISOString());
    const url = linkOf(alice.ws, campaignId, ada);
    for (let i = 0; i < LIMIT; i += 1) expect((await fetch(url)).status).toBe(200);
    const limited = await fetch(url);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '45']);
    expect(await limited.text()).toContain('<p>Please try again in 45 seconds.</p>');
    // A tampered token counts too, before its check.
    expect((await fetch(`${url}x`)).status).toBe(429);
    // Another address is counted apart (the handler reads the gateway's requestContext.identity.sourceIp).
    const handler = stack.functions.http.unsubscribe;
    const other = await handler(
      {
        httpMethod: 'GET',
        resource: '/api/v1/unsubscribe/{token}',
        path: new URL(url).pathname,
        headers: {},
        pathParameters: { token: url.slice(url.lastIndexOf('/') + 1) },
        queryStringParameters: null,
        body: null,
        isBase64Encoded: false,
        requestContext: { requestId: 'r-other', identity: { sourceIp: '203.0.113.7' } },
      } as never,
      {} as never,
    );
    expect(other.statusCode).toBe(200);
    clock.advance(45_000);
    expect((await fetch(url)).status).toBe(200);
  });
});
