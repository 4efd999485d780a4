import { type InboxService, toChatView, toMessageView } from '../../../shared/domain/inbox/inbox-service';
import type { ManualReplies } from '../../../shared/domain/inbox/manual-reply';
import type { HandlersFor } from '../../../shared/http/http-handler';
import { json } from '../../../shared/http/responses';
import type { chatRoutes } from '../../../shared/http/routes/chats';

/** Spec: Public chats (the inbox). */
export function chatHandlers(inbox: InboxService, replies: ManualReplies) {
  return {
    listChats: async (request) => {
      const page = await inbox.chats(request.caller().workspaceId, request.query().cursor);
      return json(200, { success: true, chats: page.chats.map(toChatView), next_cursor: page.nextCursor });
    },
    listChatMessages: async (request) => {
      const page = await inbox.messages(request.caller().workspaceId, request.path().prospect_id, request.query().cursor);
      return json(200, { success: true, messages: page.messages.map(toMessageView), next_cursor: page.nextCursor });
    },
    sendChatMessage: async (request) => {
      const body = request.body();
      const message = await replies.send(request.caller().workspaceId, request.path().prospect_id, {
        message: body.message,
        subjectLine: body.subject_line ?? undefined,
        senderAccountId: body.sender_account_id ?? undefined,
      });
      return json(201, { success: true, message: toMessageView(message) });
    },
  } satisfies HandlersFor<typeof chatRoutes>;
}
