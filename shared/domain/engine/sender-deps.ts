import type { Clock } from '../../time/clock';
import type { Campaign } from '../campaigns/campaign';
import type { CampaignNode, CampaignStep } from '../campaigns/nodes';
import type { CampaignRepository } from '../campaigns/ports';
import type { Company, Prospect } from '../leads/lead';
import type { NetworkProvider } from '../providers/provider';
import type { SenderAccountRepository } from '../sender-accounts/ports';
import type { SenderAccount, SendingPause } from '../sender-accounts/sender-account';
import type { UnsubscribeLinks } from '../suppressions/ports';
import type { Suppressions } from '../suppressions/suppression-service';
import type { ActionOutcome, OutreachAction } from './action';
import type { ConditionDeps } from './conditions';
import type { ActionStore, CampaignCompletion, KnownProspect, OutcomeLog, ProspectProgress, SendCounters } from './ports';
import type { RenderedStep } from './render';
import type { SendResult } from './steps';
import type { SentMessageDeps } from './sent-messages';
import type { PullFailed } from './slot-returns';

/** What the sender (shared/domain/engine/sender.ts) is built from, and what it answers per action. */
export type ActionResult =
  | 'sent'
  | 'skipped'
  | 'retrying'
  | 'waiting'
  | 'parked'
  | 'finished'
  | 'decided'
  | 'cancelled'
  | 'stale'
  | 'in_flight'
  | 'raced'
  /** Not started: the function's time left could not hold it (its message is delivered again). */
  | 'deferred';

/**
 * Applies what the provider answered to a claimed action (the sender's `settle`): the outcome
 * record, the counts, the action's next state. `rendered` and `known`: what the send was made from.
 */
export type SettleClaimed = (
  claimed: OutreachAction,
  campaign: Campaign,
  nodes: Map<number, CampaignNode>,
  step: CampaignStep,
  account: SenderAccount,
  result: SendResult,
  now: Date,
  rendered?: RenderedStep,
  known?: KnownProspect,
) => Promise<ActionResult>;

export interface SenderDeps {
  actions: ActionStore;
  counters: SendCounters;
  outcomes: OutcomeLog & { find(action: OutreachAction, nodeId: number): Promise<ActionOutcome | undefined> };
  progress: ProspectProgress;
  completion: CampaignCompletion;
  campaigns: Pick<CampaignRepository, 'get' | 'getWithFlow' | 'setStatus'>;
  accounts: Pick<SenderAccountRepository, 'listForWorkspace'> & { pauseSending(account: SenderAccount, pause: SendingPause, updatedAt: string): Promise<boolean> };
  leads: { getProspects(ids: number[], options?: { consistent?: boolean }): Promise<Prospect[]>; getCompanies(ids: number[], options?: { consistent?: boolean }): Promise<Company[]> };
  provider: NetworkProvider;
  conditions: ConditionDeps;
  sentMessages: SentMessageDeps;
  /** The workspace suppression lists: checked before each email step (skipped `suppressed`), added to on a hard bounce. */
  suppressions: Pick<Suppressions, 'check' | 'add'>;
  /** The unsubscribe URL of an email step with `add_unsubscribe`. */
  unsubscribeLinks: UnsubscribeLinks;
  clock: Clock;
  newToken: () => string;
  /** Where a pull forward that failed is reported (slot-returns.ts): it never fails the action. */
  onPullFailed?: PullFailed;
  /**
   * Time an action may still start with, given the function's time left (processBatch): two
   * provider calls at their timeout and the writes around them. An action started with less could
   * be cut off by the function's timeout after its claim, and the crash rule would record an email
   * that was never sent as UNCERTAIN.
   */
  actionReserveMs?: number;
}
