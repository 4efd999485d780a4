import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandboxProvider } from '../../../infra/local/sandbox-provider';
import { UnipileProvider } from '../../../shared/providers/unipile-provider';
import type { SandboxProvider } from '../../../infra/local/sandbox-provider';
import { ManualClock } from '../../../shared/time/clock';
import type { Receiver } from '../../support/receiver';
import { MAILBOX, NETWORK, NOW, failureOf, fields, sandboxHelpers, useSandboxWorld } from './sandbox-world';

/**
 * The sandbox provider on its own, through the real adapter (and the provider's SDK) over HTTP:
 * its fault API (by HTTP status or by provider error type) and the provider's refusals of a second
 * invitation. Chats, messages and `mail_sent`: sandbox-messages.test.ts.
 */
describe('sandbox provider', () => {
  let sandbox: SandboxProvider;
  let receiver: Receiver;
  let adapter: UnipileProvider;
  const clock = new ManualClock(NOW);
  const { controlPost, secondDegree, firstDegree } = sandboxHelpers(() => ({ sandbox, receiver, adapter }));

  useSandboxWorld(clock, (world) => {
    ({ sandbox, receiver, adapter } = world);
  });

  describe('faults by provider error type', () => {
    it('answers the status and type given with kind status, through the real adapter', async () => {
      const providerId = await secondDegree('fault-by-type');
      const fault = await sandbox.control.addFault({
        kind: 'status',
        status: 401,
        type: 'errors/disconnected_account',
        method: 'POST',
        path: '/api/v1/users/invite',
        times: 1,
      });
      expect(fault).toEqual({
        kind: 'status',
        status: 401,
        type: 'errors/disconnected_account',
        method: 'POST',
        path: '/api/v1/users/invite',
        remaining: 1,
      });

      const failure = await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId }));
      expect(fields(failure)).toEqual({ kind: 'http', status: 401, type: 'errors/disconnected_account', message: 'Disconnected account' });
      // One call only: the next invitation goes through.
      expect(await adapter.sendInvitation({ accountId: NETWORK, providerId })).toEqual({ invitationId: expect.stringMatching(/^inv_[0-9a-f]{16}$/) });
    });

    it('answers the body the provider documents: {status, type, title, detail}', async () => {
      await sandbox.control.addFault({ kind: 'error', type: 'errors/limit_exceeded', path: '/api/v1/users/invite' });
      const response = await fetch(`${sandbox.url}/api/v1/users/invite`, {
        method: 'POST',
        headers: { 'X-API-KEY': sandbox.accessToken, 'content-type': 'application/json' },
        body: JSON.stringify({ account_id: NETWORK, provider_id: 'ACo1' }),
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        status: 422,
        type: 'errors/limit_exceeded',
        title: 'Limit exceeded',
        detail: 'Injected by a sandbox fault (HTTP 422)',
      });
    });

    it.each([
      ['errors/disconnected_account', 401, 'invite'],
      ['errors/invalid_credentials', 401, 'email'],
      ['errors/expired_credentials', 401, 'chat'],
      ['errors/account_restricted', 403, 'invite'],
      ['errors/feature_not_subscribed', 403, 'chat'],
      ['errors/limit_exceeded', 422, 'invite'],
      ['errors/already_invited_recently', 422, 'invite'],
      ['errors/cannot_resend_yet', 422, 'invite'],
      ['errors/insufficient_credits', 422, 'chat'],
      ['errors/not_allowed_inmail', 422, 'chat'],
      ['errors/invalid_recipient', 422, 'invite'],
      ['errors/cannot_invite_attendee', 422, 'invite'],
      ['errors/action_already_performed', 422, 'invite'],
      ['errors/blocked_recipient', 422, 'chat'],
      ['errors/no_connection_with_recipient', 422, 'chat'],
      ['errors/recipient_rejected', 422, 'email'],
      ['errors/sender_rejected', 422, 'email'],
      ['errors/resource_not_found', 404, 'email'],
      ['errors/too_many_requests', 429, 'chat'],
      ['errors/provider_error', 500, 'invite'],
      ['errors/service_unavailable', 503, 'email'],
      ['errors/request_timeout', 504, 'chat'],
    ] as const)('kind error answers %s with its documented HTTP %i (%s send)', async (type, status, send) => {
      const attendee = await firstDegree('error-kind');
      const path = { invite: '/api/v1/users/invite', chat: '/api/v1/chats', email: '/api/v1/emails' }[send];
      const fault = await sandbox.control.addFault({ kind: 'error', type, path, times: 1 });
      expect(fault).toEqual({ kind: 'error', type, status, path, remaining: 1 });
      const call = {
        invite: () => adapter.sendInvitation({ accountId: NETWORK, providerId: attendee }),
        chat: () => adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hi' }),
        email: () => adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'S', htmlBody: '<p>B</p>' }),
      }[send];
      const failure = await failureOf(call());
      expect([failure.kind, failure.status, failure.type]).toEqual(['http', status, type]);
      expect((await sandbox.control.state()).sent).toEqual([]);
    });

    it('kind status with a type and no status answers the type’s documented status; without a type it is unchanged', async () => {
      await sandbox.control.addFault({ kind: 'status', type: 'errors/feature_not_subscribed', path: '/api/v1/users/', times: 1 });
      await sandbox.control.addFault({ kind: 'status', status: 404, path: '/api/v1/users/', times: 1 });
      await sandbox.control.addFault({ kind: 'status', path: '/api/v1/users/', times: 1 });
      await sandbox.control.addFault({ kind: 'status', status: 503, type: 'errors/made_up_by_a_test', path: '/api/v1/users/', times: 1 });
      const profile = () => adapter.getProfile({ accountId: NETWORK, identifier: 'status-kind' });
      expect(fields(await failureOf(profile()))).toEqual({
        kind: 'http',
        status: 403,
        type: 'errors/feature_not_subscribed',
        message: 'Feature not subscribed',
      });
      expect(fields(await failureOf(profile()))).toEqual({ kind: 'http', status: 404, type: 'errors/invalid_request', message: 'Sandbox fault' });
      expect(fields(await failureOf(profile()))).toEqual({ kind: 'http', status: 500, type: 'errors/provider_error', message: 'Sandbox fault' });
      expect(fields(await failureOf(profile()))).toEqual({ kind: 'http', status: 503, type: 'errors/made_up_by_a_test', message: 'Made up by a test' });
      expect((await profile()).publicIdentifier).toBe('status-kind');
    });

    it('counts times and keeps the method and path filters', async () => {
      const attendee = await firstDegree('times-count');
      await sandbox.control.addFault({ kind: 'error', type: 'errors/too_many_requests', method: 'POST', path: '/api/v1/chats', times: 2 });
      // Another method or path is not affected.
      expect((await adapter.getProfile({ accountId: NETWORK, identifier: 'times-count' })).networkDistance).toBe('FIRST_DEGREE');
      await adapter.sendEmail({ accountId: MAILBOX, to: { email: 'pat@example.com' }, subject: 'S', htmlBody: 'B' });

      const chat = () => adapter.sendMessage({ accountId: NETWORK, attendeeProviderId: attendee, text: 'Hi' });
      for (let i = 0; i < 2; i += 1) {
        expect(fields(await failureOf(chat()))).toEqual({ kind: 'http', status: 429, type: 'errors/too_many_requests', message: 'Too many requests' });
      }
      expect(await chat()).toEqual({ chatId: expect.stringMatching(/^chat_/), messageId: expect.stringMatching(/^msg_/) });
      const state = await sandbox.control.state();
      expect(state.faults).toEqual([]);
      expect(state.sent.map((item) => item.kind)).toEqual(['email', 'chat']);
    });

    it('refuses a fault it cannot answer (400 from the control API)', async () => {
      const invalid = (title: string) => ({ status: 400, body: { status: 400, type: 'errors/invalid_parameters', title } });
      expect(await controlPost('/_sandbox/faults', { kind: 'error', type: 'errors/not_a_provider_type' })).toEqual(
        invalid('Unknown provider error type errors/not_a_provider_type'),
      );
      expect(await controlPost('/_sandbox/faults', { kind: 'error' })).toEqual({
        status: 400,
        body: { status: 400, type: 'errors/missing_parameters', title: 'kind error needs a type' },
      });
      expect(await controlPost('/_sandbox/faults', { kind: 'error', type: 'errors/limit_exceeded', status: 500 })).toEqual(
        invalid('kind error picks the status: use kind status to choose one'),
      );
      expect(await controlPost('/_sandbox/faults', { kind: 'rate_limit', type: 'errors/limit_exceeded' })).toEqual(
        invalid('type goes with kind status or error'),
      );
      expect(await controlPost('/_sandbox/faults', { kind: 'status', status: 200 })).toEqual(invalid('status must be an HTTP status from 400 to 599'));
      expect(await controlPost('/_sandbox/faults', { kind: 'boom' })).toEqual(invalid('kind must be status, error, rate_limit, timeout or lost_answer'));
      expect(await controlPost('/_sandbox/faults', { kind: 'timeout', skip: -1 })).toEqual(invalid('skip must be an integer of at least 0'));
      expect((await sandbox.control.state()).faults).toEqual([]);
    });
  });

  describe('invitations', () => {
    it('answers 422 action_already_performed for a first-degree profile and already_invited_recently while one is pending', async () => {
      const connected = await firstDegree('already-connected');
      expect(fields(await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId: connected })))).toEqual({
        kind: 'http',
        status: 422,
        type: 'errors/action_already_performed',
        message: 'Action already performed',
      });

      const invitee = await secondDegree('pending-invitee');
      const { invitationId } = await adapter.sendInvitation({ accountId: NETWORK, providerId: invitee, message: 'Hello' });
      expect(fields(await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId: invitee })))).toEqual({
        kind: 'http',
        status: 422,
        type: 'errors/already_invited_recently',
        message: 'Already invited recently',
      });
      expect((await adapter.getProfile({ accountId: NETWORK, identifier: 'pending-invitee' })).invitationPending).toBe(true);
      // Another account may still invite the same person.
      const other = await sandbox.control.createAccount({ id: 'sbx-other-network', type: 'LINKEDIN' });
      expect(await adapter.sendInvitation({ accountId: other.id, providerId: invitee })).toEqual({ invitationId: expect.stringMatching(/^inv_/) });

      await sandbox.control.acceptInvitation(invitationId);
      expect((await adapter.getProfile({ accountId: NETWORK, identifier: 'pending-invitee' })).invitationPending).toBe(false);
      expect((await failureOf(adapter.sendInvitation({ accountId: NETWORK, providerId: invitee }))).type).toBe('errors/action_already_performed');

      const { sent } = await sandbox.control.state();
      expect(sent).toEqual([
        { kind: 'invitation', accountId: NETWORK, to: invitee, text: 'Hello', at: NOW, invitationId },
        { kind: 'invitation', accountId: other.id, to: invitee, text: '', at: NOW, invitationId: expect.stringMatching(/^inv_/) },
      ]);
    });
  });

  describe('accounts kept in a file (npm start)', () => {
    it('finds the accounts of a run before it: connected, changed and deleted', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sandbox-accounts-'));
      const accountsFile = join(dir, 'sandbox-accounts.json');
      const start = async () => {
        const provider = await startSandboxProvider({ accessToken: 'kept-token', clock, accountsFile });
        return { provider, adapter: new UnipileProvider({ baseUrl: provider.url, accessToken: 'kept-token', timeoutMs: 2_000 }) };
      };
      try {
        const first = await start();
        await first.provider.control.createAccount({ id: 'sbx-kept', type: 'LINKEDIN', name: 'Kept' });
        await first.provider.control.createAccount({ id: 'sbx-dropped', type: 'MAIL', name: 'Dropped' });
        await first.provider.control.setAccountStatus('sbx-kept', 'CREDENTIALS');
        await first.provider.control.deleteAccount('sbx-dropped');
        await first.provider.stop();

        const second = await start();
        try {
          expect(await second.adapter.getAccount('sbx-kept')).toMatchObject({ id: 'sbx-kept', name: 'Kept', type: 'LINKEDIN', status: 'CREDENTIALS' });
          expect(await second.adapter.getAccount('sbx-dropped')).toBeUndefined();
          expect((await second.adapter.listAccounts()).map((account) => account.id).sort()).toEqual([MAILBOX, NETWORK, 'sbx-kept'].sort());
        } finally {
          await second.provider.stop();
        }
        // A file that cannot be read (cut off mid-write by something else) starts with the fixed accounts only.
        writeFileSync(accountsFile, '[{"id": "sbx-cut');
        const third = await start();
        try {
          expect((await third.adapter.listAccounts()).map((account) => account.id).sort()).toEqual([MAILBOX, NETWORK].sort());
        } finally {
          await third.provider.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
