import type { Logger } from '../logging/logger';
import type { SenderDeps } from '../domain/engine/sender-deps';
import type { SenderAccount, SendingPause } from '../domain/sender-accounts/sender-account';

/**
 * The log line the sender writes when the engine pauses a sender account (docs/engine.md,
 * "Provider answers"). The stack turns it into a metric with a log metric filter and alarms on the
 * pauses that wait for the provider (`waitsForProvider: true`): those need a person to reconnect the
 * account, while a quota pause ends by itself the next UTC day. Field names are the filter's: keep
 * them in step with infra/constructs/service-monitoring.ts (its test checks the pattern).
 */
export const ACCOUNT_PAUSE_LOG = {
  message: 'Sender account paused',
  /** The `event` field of the line: what the metric filter matches. */
  event: 'sender_account_paused',
} as const;

/** What the line carries besides the message. */
export interface AccountPauseLogFields {
  event: typeof ACCOUNT_PAUSE_LOG.event;
  workspaceId: number;
  accountId: number;
  reason: string;
  /** Left out of the line when null (Powertools drops null values). */
  until: string | null;
  /** True when the pause lasts until the provider reports the account active (`until` null): what the alarm counts. */
  waitsForProvider: boolean;
}

export const accountPauseLogFields = (account: SenderAccount, pause: SendingPause): AccountPauseLogFields => ({
  event: ACCOUNT_PAUSE_LOG.event,
  workspaceId: account.workspaceId,
  accountId: account.id,
  reason: pause.reason,
  until: pause.until,
  waitsForProvider: pause.until === null,
});

/**
 * The sender's accounts, logging each pause written (a warning: an account stopped sending). A pause
 * not written (the account is gone) logs nothing. Nothing else changes.
 */
export function loggingAccountPauses(accounts: SenderDeps['accounts'], logger: Pick<Logger, 'warn'>): SenderDeps['accounts'] {
  return {
    listForWorkspace: (workspaceId) => accounts.listForWorkspace(workspaceId),
    async pauseSending(account, pause, updatedAt) {
      const paused = await accounts.pauseSending(account, pause, updatedAt);
      if (paused) logger.warn(ACCOUNT_PAUSE_LOG.message, { ...accountPauseLogFields(account, pause) });
      return paused;
    },
  };
}
