import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCampaignRepository } from '../../../shared/db/campaign-repository';
import { ManualClock } from '../../../shared/time/clock';
import { type TestStack, createKey, signUp, startTestStack } from '../../support/test-stack';

interface CampaignView {
  id: number;
  status: string;
  updated_at: string;
  [key: string]: unknown;
}

const NO_STEPS = 'Campaign has no steps: add at least one step before activating';
const NO_MAILBOX = 'Campaign has EMAIL steps but no active email account attached (attach a connected mailbox with account_ids)';
const NO_NETWORK =
  'Campaign has NETWORK_INVITE or NETWORK_MESSAGE steps but no active network account attached (attach a connected network account with account_ids)';
const NO_NETWORK_FOR_CONDITIONS =
  'Campaign has ACCEPTED_INVITE or ALREADY_CONNECTED conditions but no active network account attached (attach a connected network account with account_ids)';

/** The status endpoints: activation readiness, the moves between statuses, repeats and refusals. */
describe('campaign status: activate, pause, resume, archive', () => {
  const clock = new ManualClock('2026-11-24T09:00:00.000Z');
  let stack: TestStack;
  let aliceKey: string;
  let workspaceId: number;
  let bobKey: string;
  let mailboxId: number;
  let networkId: number;
  let disconnectedId: number;

  const at = () => clock.now().toISOString();
  const status = (action: string, id: number, apiKey = aliceKey) =>
    stack.call<{ success: boolean; campaign: CampaignView; error?: string }>('POST', `/public/campaigns/${id}/${action}/`, { apiKey });
  const register = async (providerAccountId: string): Promise<number> => {
    const account = await stack.call<{ account: { id: number } }>('POST', '/public/accounts/', {
      apiKey: aliceKey,
      body: { provider_account_id: providerAccountId },
    });
    expect(account.status, account.text).toBe(201);
    return account.body.account.id;
  };
  const campaign = async (name: string): Promise<CampaignView> => {
    const created = await stack.call<{ campaign: CampaignView }>('POST', '/public/campaigns/', { apiKey: aliceKey, body: { name } });
    expect(created.status, created.text).toBe(201);
    return created.body.campaign;
  };
  const addStep = async (id: number, body: Record<string, unknown>) => {
    const added = await stack.call('POST', `/public/campaigns/${id}/steps/`, { apiKey: aliceKey, body });
    expect(added.status, added.text).toBe(201);
  };
  const attach = async (id: number, accountIds: number[]) => {
    const patched = await stack.call('PATCH', `/public/campaigns/${id}/`, { apiKey: aliceKey, body: { account_ids: accountIds } });
    expect(patched.status, patched.text).toBe(200);
  };
  const currentStatus = async (id: number) =>
    (await stack.call<{ campaign: CampaignView }>('GET', `/public/campaigns/${id}/`, { apiKey: aliceKey })).body.campaign.status;

  beforeAll(async () => {
    stack = await startTestStack({ rateLimitPerMinute: 100_000, clock });
    const alice = await signUp(stack);
    workspaceId = alice.workspaceId;
    aliceKey = (await createKey(stack, alice)).key;
    bobKey = (await createKey(stack, await signUp(stack))).key;
    mailboxId = await register('sbx-mailbox-dev');
    networkId = await register('sbx-network-dev');
    const disconnected = await stack.provider.control.createAccount({ type: 'LINKEDIN', status: 'CREDENTIALS' });
    disconnectedId = await register(disconnected.id);
  });
  afterAll(async () => stack?.stop());

  it('activates only a campaign that can run, naming every problem, and leaves it DRAFT until then', async () => {
    const { id } = await campaign('Readiness');
    const refusals: string[] = [];
    const refused = async () => {
      const response = await status('activate', id);
      expect(response.status, response.text).toBe(400);
      refusals.push(response.body.error ?? '');
    };
    await refused();
    await addStep(id, { step_type: 'EMAIL', subject_line: 'Hi {{first_name}}', message_template: 'Hello' });
    await refused();
    await addStep(id, { step_type: 'NETWORK_INVITE', message_template: 'Hi' });
    await refused();
    await attach(id, [mailboxId, disconnectedId]);
    await refused();
    expect(refusals).toEqual([NO_STEPS, NO_MAILBOX, `${NO_MAILBOX}; ${NO_NETWORK}`, NO_NETWORK]);
    expect(await currentStatus(id)).toBe('DRAFT');

    await attach(id, [mailboxId, networkId]);
    clock.advance(60_000);
    const activated = await status('activate', id);
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body).toEqual({ success: true, campaign: expect.objectContaining({ id, status: 'ACTIVE', updated_at: at() }) });
    expect(await currentStatus(id)).toBe('ACTIVE');
  });

  it('asks for a network account when only a condition needs one (ALREADY_CONNECTED, ACCEPTED_INVITE), not for HAS_EMAIL', async () => {
    const { id } = await campaign('Network condition');
    const post = async <T,>(path: string, body: Record<string, unknown>): Promise<T> => {
      const added = await stack.call<T>('POST', `/public/campaigns/${id}/${path}/`, { apiKey: aliceKey, body });
      expect(added.status, added.text).toBe(201);
      return added.body;
    };
    const first = await post<{ step: { id: number } }>('steps', { step_type: 'EMAIL', subject_line: 'Hi', message_template: 'Hello' });
    const hasEmail = await post<{ condition: { id: number } }>('conditions', { parent_step_id: first.step.id, condition_type: 'HAS_EMAIL' });
    const yes = await post<{ step: { id: number } }>('steps', {
      step_type: 'EMAIL',
      subject_line: 'Yes',
      message_template: 'Yes',
      parent_condition_id: hasEmail.condition.id,
      branch: 'YES',
    });
    await attach(id, [mailboxId, disconnectedId]);
    // HAS_EMAIL needs no network account.
    expect((await status('activate', id)).status).toBe(200);
    expect((await status('pause', id)).status).toBe(200);
    // ALREADY_CONNECTED does, and an inactive one is not one: resuming checks again.
    await post('conditions', { parent_step_id: yes.step.id, condition_type: 'ALREADY_CONNECTED' });
    const refused = await status('resume', id);
    expect([refused.status, refused.body.error]).toEqual([400, NO_NETWORK_FOR_CONDITIONS]);
    expect(await currentStatus(id)).toBe('PAUSED');
    await attach(id, [mailboxId, networkId]);
    expect((await status('resume', id)).status).toBe(200);
    expect(await currentStatus(id)).toBe('ACTIVE');
  });

  it('pauses, resumes and archives; a repeat answers 200 unchanged; a move the status does not allow is 409 naming it', async () => {
    const { id } = await campaign('Lifecycle');
    const draftRefusals: [string, string][] = [
      ['pause', 'Cannot pause a campaign that is DRAFT'],
      ['resume', 'Cannot resume a campaign that is DRAFT'],
    ];
    for (const [action, error] of draftRefusals) {
      const response = await status(action, id);
      expect({ status: response.status, body: response.body }, action).toEqual({ status: 409, body: { error } });
    }
    await addStep(id, { step_type: 'NETWORK_MESSAGE', message_template: 'Hello {{first_name}}' });
    await attach(id, [networkId]);

    const moves: [string, string][] = [
      ['activate', 'ACTIVE'],
      ['activate', 'ACTIVE'],
      ['resume', 'ACTIVE'],
      ['pause', 'PAUSED'],
      ['pause', 'PAUSED'],
      ['resume', 'ACTIVE'],
      ['pause', 'PAUSED'],
      // activate on PAUSED is resume
      ['activate', 'ACTIVE'],
      ['archive', 'ARCHIVED'],
      ['archive', 'ARCHIVED'],
    ];
    let previous: CampaignView | undefined;
    for (const [action, expected] of moves) {
      clock.advance(1000);
      const response = await status(action, id);
      expect(response.status, `${action}: ${response.text}`).toBe(200);
      expect(response.body.success).toBe(true);
      expect(response.body.campaign.status, action).toBe(expected);
      // A move changes updated_at; a repeat answers the campaign as it was.
      const repeat = previous?.status === expected;
      expect(response.body.campaign.updated_at, action).toBe(repeat ? previous?.updated_at : at());
      previous = response.body.campaign;
    }

    const archivedRefusals: [string, string][] = [
      ['activate', 'Cannot activate a campaign that is ARCHIVED'],
      ['pause', 'Cannot pause a campaign that is ARCHIVED'],
      ['resume', 'Cannot resume a campaign that is ARCHIVED'],
    ];
    for (const [action, error] of archivedRefusals) {
      const response = await status(action, id);
      expect({ status: response.status, body: response.body }, action).toEqual({ status: 409, body: { error } });
    }
    const settings = await stack.call('PATCH', `/public/campaigns/${id}/`, { apiKey: aliceKey, body: { name: 'Renamed' } });
    expect({ status: settings.status, body: settings.body }).toEqual({ status: 409, body: { error: 'Campaign is archived' } });
    expect(await currentStatus(id)).toBe('ARCHIVED');
  });

  it('archives a DRAFT campaign directly, and answers 404 for unknown or foreign campaigns', async () => {
    const { id } = await campaign('Straight to the archive');
    expect((await status('archive', id)).body.campaign.status).toBe('ARCHIVED');
    for (const action of ['activate', 'pause', 'resume', 'archive']) {
      for (const [target, apiKey] of [
        [id, bobKey],
        [999_999_999, aliceKey],
      ] as const) {
        const response = await status(action, target, apiKey);
        expect({ status: response.status, body: response.body }, `${action} ${target}`).toEqual({ status: 404, body: { error: 'Campaign not found' } });
      }
    }
  });

  it('an activation asked again moves activatedAt forward only, and changes nothing else', async () => {
    const { id } = await campaign('Activated again');
    await addStep(id, { step_type: 'NETWORK_MESSAGE', message_template: 'Hello {{first_name}}' });
    await attach(id, [networkId]);
    clock.advance(1000);
    expect((await status('activate', id)).status).toBe(200);
    const repository = new DynamoCampaignRepository(stack.db, stack.tableName);
    const stored = async () => {
      const read = await repository.get(workspaceId, id);
      return { status: read?.status, activatedAt: read?.activatedAt, updatedAt: read?.updatedAt };
    };
    const first = await stored();
    expect(first).toEqual({ status: 'ACTIVE', activatedAt: at(), updatedAt: at() });
    clock.advance(1000);
    expect((await status('activate', id)).body.campaign.updated_at).toBe(first.updatedAt);
    expect(await stored()).toEqual({ status: 'ACTIVE', activatedAt: at(), updatedAt: first.updatedAt });
    // One asked with an earlier time (another function's clock) leaves the later one, and succeeds.
    const later = at();
    const current = (await repository.get(workspaceId, id)) as NonNullable<Awaited<ReturnType<typeof repository.get>>>;
    expect(await repository.setStatus(current, 'ACTIVE', 'ACTIVE', first.activatedAt as string)).toBe(true);
    expect(await stored()).toEqual({ status: 'ACTIVE', activatedAt: later, updatedAt: first.updatedAt });
    // Only an activation is asked again.
    await expect(repository.setStatus(current, 'PAUSED', 'PAUSED', later)).rejects.toThrow('setStatus: PAUSED is not set again (only an activation is asked again)');
  });
});
