import type { Clock } from '../ports';
import { type EventDataByType, type WebhookEventType, eventIdFor } from './events';
import type { DeliveryQueue, WorkspaceMembers } from './ports';

export interface EventPublisherDeps {
  members: WorkspaceMembers;
  queue: DeliveryQueue;
  clock: Clock;
}

/**
 * Puts an event on the webhooks queue, one message per member of the workspace (each user has
 * their own webhook; members without one are skipped by the worker). The event id comes from the
 * source, so publishing the same source event twice delivers it once.
 */
export function createEventPublisher(deps: EventPublisherDeps) {
  return {
    /**
     * `createdAt`: when the source event happened, kept by the caller (a reply: when it was first
     * received), so the same event published again (a replayed provider webhook taking over a
     * retry) carries the same `created_at`; now when not given.
     */
    async publish<T extends WebhookEventType>(workspaceId: number, type: T, sourceId: string, data: EventDataByType[T], createdAt = deps.clock.now().toISOString()): Promise<string> {
      const eventId = eventIdFor(type, workspaceId, sourceId);
      const userIds = await deps.members.listUserIds(workspaceId);
      await deps.queue.enqueue(userIds.map((userId) => ({ event_id: eventId, user_id: userId, workspace_id: workspaceId, type, created_at: createdAt, data })));
      return eventId;
    },
  };
}

export type EventPublisher = ReturnType<typeof createEventPublisher>;
