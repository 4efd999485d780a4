import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batch-get';
import { isConditionFailed } from './client';
import * as v from 'valibot';
import type { InboundLinkTarget, InboundLinks } from '../domain/inbox/inbound-router';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { inboundLinkKey } from './keys';

const LinkItem = itemSchema(
  'InboundLink',
  v.object({
    link: v.string(),
    workspaceId: intAttribute,
    prospectId: intAttribute,
    campaignId: v.optional(intAttribute),
    nodeId: v.optional(intAttribute),
    variant: v.optional(v.picklist(['A', 'B'])),
    sentAt: v.optional(v.string()),
  }),
);

/**
 * Inbound links (shared/domain/inbox/inbound-router.ts): a provider chat of one of our accounts, or
 * a network member a workspace's engine looked up, to its prospect (a chat the engine wrote in: and
 * the campaign and step that wrote there last). ~0.1 KB, 1 WCU; a lookup of up
 * to three links is one BatchGet (0.5 RCU each, eventually consistent: they are written when a send
 * goes out, long before an answer comes).
 */
export class DynamoInboundLinks implements InboundLinks {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(link: string, target: InboundLinkTarget): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: { ...inboundLinkKey(link), entityType: 'InboundLink', link, ...target } }));
  }

  async claim(link: string, target: InboundLinkTarget): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...inboundLinkKey(link), entityType: 'InboundLink', link, ...target },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async find(links: string[]): Promise<InboundLinkTarget | undefined> {
    if (links.length === 0) return undefined;
    // batchGetAll asks again for keys DynamoDB leaves unprocessed (throttling): one left out here
    // read as "no link", and the reply lost its campaign and step.
    const items = await batchGetAll(this.db, this.tableName, [...new Set(links)].map(inboundLinkKey));
    const found = new Map(items.map((item) => [String(item.link), parseItem(LinkItem, item)]));
    for (const link of links) {
      const item = found.get(link);
      if (item) {
        const { workspaceId, prospectId, campaignId, nodeId, variant, sentAt } = item;
        return {
          workspaceId,
          prospectId,
          ...(campaignId === undefined ? {} : { campaignId }),
          ...(nodeId === undefined ? {} : { nodeId }),
          ...(variant === undefined ? {} : { variant }),
          ...(sentAt === undefined ? {} : { sentAt }),
        };
      }
    }
    return undefined;
  }
}
