import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../../shared/domain/campaigns/campaign';
import { emptyFlow } from '../../../shared/domain/campaigns/flow';
import type { SenderAccountChange, SenderAccountRepository } from '../../../shared/domain/sender-accounts/ports';
import type { SenderAccount } from '../../../shared/domain/sender-accounts/sender-account';
import { DEFAULT_ACCOUNT_DAILY_LIMITS } from '../../../shared/domain/sender-accounts/sender-account';
import { createSenderAccountService } from '../../../shared/domain/sender-accounts/sender-account-service';
import { ManualClock } from '../../../shared/time/clock';

const AT = '2027-01-04T10:00:00.000Z';
const MAILBOX = 7;

const account: SenderAccount = {
  id: MAILBOX,
  workspaceId: 1,
  name: 'Mailbox',
  type: 'EMAIL',
  status: 'OK',
  providerAccountId: 'mail-7',
  providerType: 'MAIL',
  ownProviderUserId: null,
  createdAt: AT,
  updatedAt: AT,
};

const campaign = (id: number, fields: Partial<Campaign>): Campaign => ({
  id,
  workspaceId: 1,
  name: `Campaign ${id}`,
  status: 'ACTIVE',
  timezone: 'UTC',
  language: 'en',
  emailMaxMessages: 40,
  networkMaxMessages: 40,
  networkMaxConnections: 20,
  sendingWindow: {},
  accountIds: [MAILBOX],
  stopOnCompanyReply: false,
  prospectCount: 5,
  flow: emptyFlow(),
  flowVersion: 1,
  createdAt: AT,
  updatedAt: AT,
  ...fields,
});

const CAMPAIGNS = [
  campaign(1, {}),
  campaign(2, { status: 'PAUSED' }),
  campaign(3, { status: 'DRAFT' }),
  campaign(4, { status: 'COMPLETED' }),
  campaign(5, { prospectCount: 0 }),
  campaign(6, { accountIds: [8] }),
];

/** The service over a stored account whose update applies the change as the repository would. */
function serviceWith(stored: SenderAccount, campaigns: Campaign[] = CAMPAIGNS, conflicts = 0) {
  const repaced: number[] = [];
  const detached: number[] = [];
  let conflictsLeft = conflicts;
  const accounts = {
    get: async () => stored,
    remove: async () => {},
    updateSettings: async (current: SenderAccount, change: SenderAccountChange) => {
      const limits = { ...(current.dailyLimits ?? DEFAULT_ACCOUNT_DAILY_LIMITS), ...Object.fromEntries(Object.entries(change.dailyLimits ?? {}).filter(([, v]) => v !== undefined)) };
      return { ...current, dailyLimits: limits, ...(change.endPause ? { sendingPause: undefined } : {}) };
    },
  } as unknown as SenderAccountRepository;
  const service = createSenderAccountService({
    accounts,
    provider: {} as never,
    ids: {} as never,
    clock: new ManualClock(AT),
    connectState: {} as never,
    connectLinkTtlMs: 60_000,
    pacing: {
      campaigns: {
        listForWorkspace: async () => campaigns,
        get: async (_workspace, id) => campaigns.find((campaign) => campaign.id === id),
        // Changed meanwhile `conflicts` times, then written.
        detachAccount: async (campaign, accountId, at) => {
          if (conflictsLeft > 0) {
            conflictsLeft -= 1;
            return undefined;
          }
          detached.push(campaign.id);
          return { ...campaign, accountIds: campaign.accountIds.filter((id) => id !== accountId), updatedAt: at };
        },
      },
      scheduling: { repace: async (c) => void repaced.push(c.id) },
    },
  });
  return { service, repaced, detached };
}

describe('an account change that lets it send more', () => {
  it('has the running campaigns with prospects that send through the account place their waits again', async () => {
    const { service, repaced } = serviceWith(account);
    await service.update(1, MAILBOX, { dailyLimits: { emails: 60 } });
    expect(repaced.sort()).toEqual([1, 2]);
  });

  it('does so when its sending pause is ended', async () => {
    const { service, repaced } = serviceWith({ ...account, sendingPause: { reason: 'errors/sender_rejected', until: null, at: AT } });
    await service.update(1, MAILBOX, { endPause: true });
    expect(repaced.sort()).toEqual([1, 2]);
  });

  it('leaves them alone for a limit lowered or kept, another kind’s limit lowered, or a rename', async () => {
    const { service, repaced } = serviceWith({ ...account, dailyLimits: { emails: 50, invitations: 20, networkMessages: 50 } });
    await service.update(1, MAILBOX, { dailyLimits: { emails: 30 } });
    await service.update(1, MAILBOX, { dailyLimits: { emails: 50, invitations: 10 } });
    await service.update(1, MAILBOX, { name: 'Renamed' });
    expect(repaced).toEqual([]);
  });
});

describe('an account deleted', () => {
  it('leaves every campaign it was attached to but archived ones, and the running ones with prospects place their waits again', async () => {
    const campaigns = [...CAMPAIGNS, campaign(7, { status: 'ARCHIVED' })];
    const { service, repaced, detached } = serviceWith(account, campaigns);
    await service.remove(1, MAILBOX);
    expect(detached.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(repaced.sort()).toEqual([1, 2]);
  });

  it('reads a campaign changed meanwhile again before taking the account out', async () => {
    const { service, repaced, detached } = serviceWith(account, [campaign(1, {})], 2);
    await service.remove(1, MAILBOX);
    expect([detached, repaced]).toEqual([[1], [1]]);
  });
});
