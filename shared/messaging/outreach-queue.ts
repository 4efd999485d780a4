import * as v from 'valibot';
import type { ActionRef } from '../domain/engine/action';
import type { ActionQueue } from '../domain/engine/ports';
import { type SqsSender, sendJsonMessages } from './sqs';

/** An outreach message: up to ACTIONS_PER_MESSAGE due actions, in short field names (a message stays far below 256 KB). */
export const OutreachMessage = v.object({
  actions: v.pipe(
    v.array(
      v.object({
        c: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
        p: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
        w: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
        due: v.pipe(v.string(), v.isoTimestamp()),
        /** 1: a first action its campaign prospect carries (ActionRef.first). */
        f: v.optional(v.literal(1)),
      }),
    ),
    v.minLength(1),
    v.maxLength(100),
  ),
});

export const toMessage = (refs: ActionRef[]) => ({
  actions: refs.map((ref) => ({ c: ref.campaignId, p: ref.prospectId, w: ref.workspaceId, due: ref.dueAt, ...(ref.first ? { f: 1 as const } : {}) })),
});

/** The refs of a message body; undefined when it is not an outreach message (a poison message). */
export function refsOf(body: string): ActionRef[] | undefined {
  try {
    const parsed = v.safeParse(OutreachMessage, JSON.parse(body));
    if (!parsed.success) return undefined;
    return parsed.output.actions.map((a) => ({ campaignId: a.c, prospectId: a.p, workspaceId: a.w, dueAt: a.due, ...(a.f ? { first: true } : {}) }));
  } catch {
    return undefined;
  }
}

/** SendMessageBatch calls in flight at once: dispatching 10,000 actions is ~100 calls. */
const PARALLEL_BATCHES = 8;
const MESSAGES_PER_CALL = 10;

/** The outreach queue as the scheduler sees it. */
export function sqsOutreachQueue(sqs: SqsSender, queueUrl: string): ActionQueue {
  return {
    async send(batches) {
      const bodies = batches.filter((refs) => refs.length > 0).map(toMessage);
      const calls: (typeof bodies)[] = [];
      for (let i = 0; i < bodies.length; i += MESSAGES_PER_CALL) calls.push(bodies.slice(i, i + MESSAGES_PER_CALL));
      for (let i = 0; i < calls.length; i += PARALLEL_BATCHES) {
        await Promise.all(calls.slice(i, i + PARALLEL_BATCHES).map((chunk) => sendJsonMessages(sqs, queueUrl, chunk)));
      }
    },
  };
}
