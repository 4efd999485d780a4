import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoInboundLinks } from '../../../shared/db/inbound-links';
import { inboundLinkKey } from '../../../shared/db/keys';

describe('finding an inbound link', () => {
  it('asks again for a link DynamoDB left unprocessed (throttled) instead of reading it as no link', async () => {
    const link = 'CHAT#acc-1#chat-9';
    const item = { ...inboundLinkKey(link), entityType: 'InboundLink', link, workspaceId: 7, prospectId: 41, campaignId: 3, nodeId: 12 };
    const asked: number[] = [];
    const db = {
      send: async (command: { input: { RequestItems: Record<string, { Keys: unknown[] }> } }) => {
        asked.push(command.input.RequestItems.t?.Keys.length ?? 0);
        // The first answer leaves the key unprocessed, as DynamoDB does when the partition is throttled.
        return asked.length === 1 ? { Responses: { t: [] }, UnprocessedKeys: { t: { Keys: [inboundLinkKey(link)] } } } : { Responses: { t: [item] } };
      },
    } as unknown as DynamoDBDocumentClient;
    expect(await new DynamoInboundLinks(db, 't').find([link])).toEqual({ workspaceId: 7, prospectId: 41, campaignId: 3, nodeId: 12 });
    expect(asked).toEqual([1, 1]);
  });
});
