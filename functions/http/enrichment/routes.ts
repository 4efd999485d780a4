import type { CreditService } from '../../../shared/domain/credits/credits';
import { LEDGER_PAGE, toLedgerEntryView } from '../../../shared/domain/credits/credits';
import { type EnrichmentService, toJobView, toResultView } from '../../../shared/domain/enrichment/enrichment-service';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { enrichmentRoutes } from '../../../shared/http/routes/enrichment';
import { queryParams } from '../lead-lists/schemas';

/** Credits, the enrichment estimate and start, and enrichment jobs. */
export function enrichmentHandlers(credits: CreditService, enrichment: EnrichmentService) {
  return {
    getCredits: async (request) => {
      const { page_size, cursor } = request.query();
      const { balance, ledger } = await credits.overview(request.caller().workspaceId, {
        limit: page_size ?? LEDGER_PAGE.default,
        ...(cursor ? { cursor } : {}),
      });
      return json(200, { success: true, balance, ledger: ledger.entries.map(toLedgerEntryView), next_cursor: ledger.next ?? null });
    },

    countEnrichment: async (request) => {
      const estimate = await enrichment.count(request.caller().workspaceId, request.path().id, queryParams(request.event));
      return json(200, {
        success: true,
        enrichment_type: estimate.type,
        unenriched_count: estimate.unenriched,
        cost_per_lead: estimate.costPerLead,
        total_cost: estimate.totalCost,
        available_credits: estimate.available,
        has_enough_credits: estimate.available >= estimate.totalCost,
      });
    },

    startEnrichment: async (request) => {
      const caller = request.caller();
      const body = request.body();
      const input = {
        enrichmentType: body.enrichment_type,
        prospectLimit: body.prospect_limit,
        mode: body.mode,
        webhookUrl: body.webhook_url,
        filters: body.filters,
        sortField: body.sort_field,
        sortDirection: body.sort_direction,
      };
      // A sync start's provider calls stay within the function's time (processor.ts).
      const outcome = await enrichment.start({ workspaceId: caller.workspaceId, userId: caller.userId }, request.path().id, input, request.timeLeft);
      if (outcome.mode === 'sync') {
        const results = (outcome.results ?? []).map((result) => toResultView(outcome.type, result));
        return json(200, {
          success: true,
          mode: 'sync',
          enrichment_type: outcome.type,
          total_count: outcome.selected,
          success_count: results.filter((result) => result.success).length,
          credits_deducted: outcome.creditsDeducted,
          remaining_credits: outcome.remaining,
          results,
        });
      }
      const message =
        outcome.selected === 0
          ? 'No prospects to enrich: nothing was charged.'
          : `Enrichment started in background.${outcome.webhookUrl ? ` Results will be sent to ${outcome.webhookUrl}` : ` Follow it at /api/v1/public/enrichment-jobs/${outcome.job?.id}/`}`;
      return json(200, {
        success: true,
        mode: 'async',
        enrichment_type: outcome.type,
        enriched_count: outcome.selected,
        credits_deducted: outcome.creditsDeducted,
        remaining_credits: outcome.remaining,
        webhook_url: outcome.webhookUrl,
        message,
        job_id: outcome.job?.id ?? null,
      });
    },

    getEnrichmentJob: async (request) => {
      const job = await enrichment.job(request.caller().workspaceId, request.path().job_id);
      return json(200, { success: true, job: toJobView(job) });
    },
  } satisfies HandlersFor<typeof enrichmentRoutes>;
}
