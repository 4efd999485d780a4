import { type SenderAccount, isActiveAccount } from '../sender-accounts/sender-account';
import { type Campaign, toCampaignView } from './campaign';
import { conditionWiring, orderedNodes, stepWiring } from './flow';
import type { CampaignCondition, CampaignNode, CampaignStep } from './nodes';

/** API shapes of a campaign's flow (spec: Campaign step, Campaign condition, Campaign detail). */

export function toStepView(campaign: Campaign, step: CampaignStep) {
  return {
    id: step.id,
    step_type: step.stepType,
    subject_line: step.subjectLine,
    message_template: step.messageTemplate,
    subject_line_b: step.subjectLineB,
    message_template_b: step.messageTemplateB,
    delay_in_hours: step.delayInHours,
    add_unsubscribe: step.addUnsubscribe,
    ...stepWiring(campaign.flow, step.id),
    created_at: step.createdAt,
    updated_at: step.updatedAt,
  };
}

export function toConditionView(campaign: Campaign, condition: CampaignCondition) {
  return {
    id: condition.id,
    condition_type: condition.conditionType,
    delay_in_hours: condition.delayInHours,
    ...conditionWiring(campaign.flow, condition.id),
    created_at: condition.createdAt,
    updated_at: condition.updatedAt,
  };
}

/** A sender account as a campaign's detail shows it (the spec leaves the shape open). */
export const toCampaignAccountView = (account: SenderAccount) => ({
  id: account.id,
  name: account.name,
  type: account.type,
  status: account.status,
  is_active: isActiveAccount(account),
});

/**
 * The campaign detail: the campaign, its sender accounts, its steps and conditions in flow order
 * (main path first, then branches) and its root as `first_step` or `first_condition`.
 */
export function toCampaignDetailView(campaign: Campaign, nodes: ReadonlyMap<number, CampaignNode>, accounts: SenderAccount[]) {
  const byId = new Map(accounts.map((account) => [account.id, account]));
  const steps: ReturnType<typeof toStepView>[] = [];
  const conditions: ReturnType<typeof toConditionView>[] = [];
  for (const id of orderedNodes(campaign.flow)) {
    const node = nodes.get(id);
    if (node?.kind === 'STEP') steps.push(toStepView(campaign, node));
    else if (node?.kind === 'CONDITION') conditions.push(toConditionView(campaign, node));
  }
  const root = campaign.flow.root === null ? undefined : nodes.get(campaign.flow.root);
  return {
    ...toCampaignView(campaign),
    accounts: campaign.accountIds.flatMap((id) => {
      const account = byId.get(id);
      return account ? [toCampaignAccountView(account)] : [];
    }),
    steps,
    conditions,
    first_step: root?.kind === 'STEP' ? toStepView(campaign, root) : null,
    first_condition: root?.kind === 'CONDITION' ? toConditionView(campaign, root) : null,
  };
}
