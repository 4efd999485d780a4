import type * as v from 'valibot';
import type { CampaignDetail } from '../../../shared/domain/campaigns/campaign-service';
import type { FlowService, StepTexts } from '../../../shared/domain/campaigns/flow-service';
import { toCampaignDetailView, toConditionView, toStepView } from '../../../shared/domain/campaigns/views';
import { validationError } from '../../../shared/domain/errors';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { CreateStepBody, UpdateStepBody, campaignFlowRoutes } from '../../../shared/http/routes/campaign-flow';

/** A field given with a value; null and absent are both "not given". */
const given = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);
/** A text field: null clears it (""), absent leaves it. */
const textOf = (value: string | null | undefined): string | undefined => (value === null ? '' : value);

/** A node sent back as read names itself; another id is a 400 (ids never change). */
function sameId(given: number | undefined, id: number, kind: 'step' | 'condition'): void {
  if (given !== undefined && given !== id) throw validationError(`id cannot be changed on a ${kind}`);
}

function textsFrom(body: v.InferOutput<typeof CreateStepBody> | v.InferOutput<typeof UpdateStepBody>): StepTexts {
  return {
    subjectLine: textOf(body.subject_line),
    messageTemplate: textOf(body.message_template),
    subjectLineB: textOf(body.subject_line_b),
    messageTemplateB: textOf(body.message_template_b),
    delayInHours: given(body.delay_in_hours),
    addUnsubscribe: given(body.add_unsubscribe),
  };
}

const detailView = (detail: CampaignDetail) => toCampaignDetailView(detail.campaign, detail.nodes, detail.accounts);

/** Spec: Campaigns, steps and conditions. */
export function campaignFlowHandlers(flow: FlowService) {
  return {
    listCampaignSteps: async (request) => {
      const { campaign, steps } = await flow.listSteps(request.caller().workspaceId, request.path().id);
      return json(200, { success: true, steps: steps.map((step) => toStepView(campaign, step)) });
    },

    createCampaignStep: async (request) => {
      const body = request.body();
      const { node, detail } = await flow.addStep(request.caller().workspaceId, request.path().id, {
        ...textsFrom(body),
        stepType: body.step_type,
        parentStepId: given(body.parent_step_id),
        parentConditionId: given(body.parent_condition_id),
        branch: given(body.branch),
      });
      return json(201, { success: true, step: toStepView(detail.campaign, node), campaign: detailView(detail) });
    },

    getCampaignStep: async (request) => {
      const { id, step_id } = request.path();
      const { campaign, step } = await flow.getStep(request.caller().workspaceId, id, step_id);
      return json(200, { success: true, step: toStepView(campaign, step) });
    },

    updateCampaignStep: async (request) => {
      const { id, step_id } = request.path();
      const body = request.body();
      sameId(body.id, step_id, 'step');
      const { node, detail } = await flow.updateStep(request.caller().workspaceId, id, step_id, {
        ...textsFrom(body),
        stepType: body.step_type,
        parentStepId: body.parent_step_id,
        parentConditionId: body.parent_condition_id,
        branch: body.branch,
        childStepId: body.child_step_id,
        childConditionId: body.child_condition_id,
      });
      return json(200, { success: true, step: toStepView(detail.campaign, node), campaign: detailView(detail) });
    },

    deleteCampaignStep: async (request) => {
      const { id, step_id } = request.path();
      const detail = await flow.removeStep(request.caller().workspaceId, id, step_id);
      return json(200, { success: true, campaign: detailView(detail) });
    },

    createCampaignCondition: async (request) => {
      const body = request.body();
      const { node, detail } = await flow.addCondition(request.caller().workspaceId, request.path().id, {
        conditionType: body.condition_type,
        delayInHours: given(body.delay_in_hours),
        parentStepId: given(body.parent_step_id),
        yesChildStepId: given(body.yes_child_step_id),
        noChildStepId: given(body.no_child_step_id),
      });
      return json(201, { success: true, condition: toConditionView(detail.campaign, node), campaign: detailView(detail) });
    },

    getCampaignCondition: async (request) => {
      const { id, condition_id } = request.path();
      const { campaign, condition } = await flow.getCondition(request.caller().workspaceId, id, condition_id);
      return json(200, { success: true, condition: toConditionView(campaign, condition) });
    },

    updateCampaignCondition: async (request) => {
      const { id, condition_id } = request.path();
      const body = request.body();
      sameId(body.id, condition_id, 'condition');
      const { node, detail } = await flow.updateCondition(request.caller().workspaceId, id, condition_id, {
        conditionType: body.condition_type,
        delayInHours: body.delay_in_hours,
        wiring: { parent_step_id: body.parent_step_id, yes_child_step_id: body.yes_child_step_id, no_child_step_id: body.no_child_step_id },
      });
      return json(200, { success: true, condition: toConditionView(detail.campaign, node), campaign: detailView(detail) });
    },

    deleteCampaignCondition: async (request) => {
      const { id, condition_id } = request.path();
      const detail = await flow.removeCondition(request.caller().workspaceId, id, condition_id);
      return json(200, { success: true, campaign: detailView(detail) });
    },
  } satisfies HandlersFor<typeof campaignFlowRoutes>;
}
