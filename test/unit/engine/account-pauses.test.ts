import { describe, expect, it } from 'vitest';
import type { SenderAccount, SendingPause } from '../../../shared/domain/sender-accounts/sender-account';
import { createLogger } from '../../../shared/logging/logger';
import { ACCOUNT_PAUSE_LOG, loggingAccountPauses } from '../../../shared/runtime/account-pauses';

const account: SenderAccount = {
  id: 41,
  workspaceId: 7,
  name: 'Ada (network)',
  type: 'NETWORK',
  status: 'OK',
  providerAccountId: 'acc-1',
  providerType: 'LINKEDIN',
  ownProviderUserId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function setup(written: boolean) {
  const lines: string[] = [];
  const calls: unknown[][] = [];
  const accounts = loggingAccountPauses(
    {
      listForWorkspace: async (workspaceId: number) => (workspaceId === 7 ? [account] : []),
      pauseSending: async (...args: [SenderAccount, SendingPause, string]) => {
        calls.push(args);
        return written;
      },
    },
    createLogger({ service: 'outreach', sink: (line) => lines.push(line) }),
  );
  return { accounts, lines, calls };
}

describe('the sender logs each account pause (the stack alarms on it)', () => {
  it('writes the pause, then one warning with the fields the metric filter matches', async () => {
    const { accounts, lines, calls } = setup(true);
    const pause = { reason: 'errors/disconnected_account', until: null, at: '2026-05-01T09:30:00.000Z' };
    expect(await accounts.pauseSending(account, pause, pause.at)).toBe(true);
    expect(calls).toEqual([[account, pause, pause.at]]);
    expect(lines).toHaveLength(1);
    // The alarm's filter: { ($.event = "sender_account_paused") && ($.waitsForProvider IS TRUE) }.
    const entry = JSON.parse(lines[0] ?? '');
    expect(entry).toMatchObject({
      level: 'WARN',
      message: ACCOUNT_PAUSE_LOG.message,
      service: 'outreach',
      event: 'sender_account_paused',
      workspaceId: 7,
      accountId: 41,
      reason: 'errors/disconnected_account',
      waitsForProvider: true,
    });
    // Powertools leaves null values out, which is why the filter looks at waitsForProvider, not until.
    expect('until' in entry).toBe(false);
  });

  it('marks a quota pause (it ends by itself) as not waiting for the provider', async () => {
    const { accounts, lines } = setup(true);
    const pause = { reason: 'errors/limit_exceeded', until: '2026-05-02T00:00:00.000Z', at: '2026-05-01T09:30:00.000Z' };
    await accounts.pauseSending(account, pause, pause.at);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ event: 'sender_account_paused', until: pause.until, waitsForProvider: false });
  });

  it('logs nothing when the account is gone (no pause written), and reads accounts unchanged', async () => {
    const { accounts, lines } = setup(false);
    expect(await accounts.pauseSending(account, { reason: 'errors/disconnected_account', until: null, at: 'x' }, 'x')).toBe(false);
    expect(lines).toEqual([]);
    expect(await accounts.listForWorkspace(7)).toEqual([account]);
  });
});
