import { validationError } from '../errors';
import type { Clock, IdGenerator } from '../ports';

/**
 * Credits: each workspace has a balance and an append-only ledger whose entries always sum to it.
 * Every change of the balance is written in one transaction with its ledger entry, and a debit is
 * conditional on the balance covering it, so the balance never goes negative (docs/enrichment.md).
 */
export type LedgerKind = 'GRANT' | 'DEBIT' | 'REFUND';

export interface LedgerEntry {
  id: number;
  workspaceId: number;
  kind: LedgerKind;
  /** Signed: positive for grants and refunds, negative for debits. */
  amount: number;
  reason: string;
  /** The enrichment job a debit or refund belongs to. */
  jobId?: number;
  createdAt: string;
}

export interface LedgerPage {
  entries: LedgerEntry[];
  /** Where the next (older) page starts; absent at the end. */
  next?: string;
}

export interface CreditRepository {
  /** The workspace's balance (0 for a workspace that never had credits). */
  balance(workspaceId: number): Promise<number>;
  /** The ledger, newest first. `cursor` is a previous page's `next`. */
  ledger(workspaceId: number, page: { limit: number; cursor?: string }): Promise<LedgerPage>;
  /**
   * Adds credits with their ledger entry, atomically. With `once`, a grant of that name is made at
   * most once in the workspace (false when it was made before).
   */
  grant(entry: LedgerEntry, options?: { once?: string }): Promise<boolean>;
}

export const MAX_GRANT = 10_000_000;
export const LEDGER_PAGE = { default: 25, max: 100 } as const;

/** Grants of the development workspace (`npm start`) and the default of every other workspace. */
export const DEV_WORKSPACE_CREDITS = 1000;

export interface CreditServiceDeps {
  credits: CreditRepository;
  ids: IdGenerator;
  clock: Clock;
}

export function createCreditService(deps: CreditServiceDeps) {
  return {
    async overview(workspaceId: number, page: { limit: number; cursor?: string }) {
      const [balance, ledger] = await Promise.all([deps.credits.balance(workspaceId), deps.credits.ledger(workspaceId, page)]);
      return { balance, ledger };
    },

    /** An operator's grant (npm run credits); `once` names a grant made at most once per workspace. */
    async grant(workspaceId: number, amount: number, reason: string, once?: string): Promise<boolean> {
      if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_GRANT) throw validationError(`amount must be an integer from 1 to ${MAX_GRANT}`);
      const entry: LedgerEntry = { id: await deps.ids.next(), workspaceId, kind: 'GRANT', amount, reason, createdAt: deps.clock.now().toISOString() };
      return deps.credits.grant(entry, once ? { once } : {});
    },
  };
}

export type CreditService = ReturnType<typeof createCreditService>;

export const toLedgerEntryView = (entry: LedgerEntry) => ({
  id: entry.id,
  type: entry.kind.toLowerCase() as 'grant' | 'debit' | 'refund',
  amount: entry.amount,
  reason: entry.reason,
  job_id: entry.jobId ?? null,
  created_at: entry.createdAt,
});
