import type { CampaignSettings } from '../../../shared/domain/campaigns/campaign';
import { toCampaignListItem, toCampaignView } from '../../../shared/domain/campaigns/campaign';
import type { CampaignService } from '../../../shared/domain/campaigns/campaign-service';
import { toCampaignDetailView } from '../../../shared/domain/campaigns/views';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { UpdateCampaignBody, campaignRoutes } from '../../../shared/http/routes/campaigns';
import type * as v from 'valibot';

/** The PATCH body in domain names; only the fields given. */
function settingsFrom(body: v.InferOutput<typeof UpdateCampaignBody>): CampaignSettings {
  const settings: CampaignSettings = {};
  if (body.name !== undefined) settings.name = body.name;
  if (body.timezone !== undefined) settings.timezone = body.timezone;
  if (body.language !== undefined) settings.language = body.language;
  if (body.email_max_messages !== undefined) settings.emailMaxMessages = body.email_max_messages;
  if (body.network_max_messages !== undefined) settings.networkMaxMessages = body.network_max_messages;
  if (body.network_max_connections !== undefined) settings.networkMaxConnections = body.network_max_connections;
  if (body.sending_window !== undefined) {
    settings.sendingWindow = Object.fromEntries(Object.entries(body.sending_window).filter(([, window]) => window !== undefined));
  }
  if (body.account_ids !== undefined) settings.accountIds = body.account_ids;
  if (body.stop_on_company_reply !== undefined) settings.stopOnCompanyReply = body.stop_on_company_reply;
  return settings;
}

/** Spec: Campaigns. */
export function campaignHandlers(campaigns: CampaignService) {
  const statusChange = (action: 'activate' | 'pause' | 'resume' | 'archive') => async (request: { caller(): { workspaceId: number }; path(): { id: number } }) => {
    const campaign = await campaigns.changeStatus(request.caller().workspaceId, request.path().id, action);
    return json(200, { success: true, campaign: toCampaignView(campaign) });
  };
  return {
    listCampaigns: async (request) => {
      const found = await campaigns.list(request.caller().workspaceId);
      return json(200, { success: true, campaigns: found.map(toCampaignView) });
    },

    createCampaign: async (request) => {
      const campaign = await campaigns.create(request.caller().workspaceId, request.body().name);
      return json(201, { success: true, campaign: toCampaignView(campaign) });
    },

    getCampaign: async (request) => {
      const { campaign, nodes, accounts } = await campaigns.detail(request.caller().workspaceId, request.path().id);
      return json(200, { success: true, campaign: toCampaignDetailView(campaign, nodes, accounts) });
    },

    updateCampaign: async (request) => {
      const campaign = await campaigns.update(request.caller().workspaceId, request.path().id, settingsFrom(request.body()));
      return json(200, { success: true, campaign: toCampaignView(campaign) });
    },

    activateCampaign: statusChange('activate'),
    pauseCampaign: statusChange('pause'),
    resumeCampaign: statusChange('resume'),
    archiveCampaign: statusChange('archive'),

    listAppCampaigns: async (request) => {
      const caller = request.caller();
      const found = await campaigns.listForUser(caller.userId, caller.workspaceId, request.query().workspace_id);
      return json(200, { campaigns: found.map(toCampaignListItem) });
    },
  } satisfies HandlersFor<typeof campaignRoutes>;
}
