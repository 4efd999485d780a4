import type { Clock } from '../ports';
import { eventIdFor } from '../webhooks/events';
import type { DeliveryQueue } from '../webhooks/ports';
import { toJobView } from './enrichment-service';
import type { CompletionNotifier } from './ports';

/**
 * The completion event of a job with a webhook_url: one message on the webhooks queue, delivered
 * by the user-webhook worker (signed with the starting user's secret, retried on its schedule).
 * Its id comes from the job, so completing a job twice delivers it once.
 */
export function createCompletionNotifier(deps: { queue: DeliveryQueue; clock: Clock }): CompletionNotifier {
  return {
    async jobCompleted(job) {
      if (!job.webhookUrl) return;
      await deps.queue.enqueue([
        {
          event_id: eventIdFor('enrichment_completed', job.workspaceId, `job:${job.id}`),
          user_id: job.userId,
          workspace_id: job.workspaceId,
          type: 'enrichment_completed',
          created_at: deps.clock.now().toISOString(),
          data: { job: toJobView(job) },
          url: job.webhookUrl,
        },
      ]);
    },
  };
}
