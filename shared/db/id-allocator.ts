import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { IdGenerator } from '../domain/ports';
import { intAttribute, itemSchema, parseItem } from './item-schema';
import { idShardKey } from './keys';

/** What the block reservation returns of a shard: its counter after the ADD. */
export const IdShardItem = itemSchema('IdShard', v.object({ next: intAttribute }));

/** Number of counter shards; ids interleave across them so no single item is hot. */
export const ID_SHARDS = 64;

export interface IdAllocatorOptions {
  /** Ids reserved per DynamoDB write. */
  blockSize?: number;
  /** Fixed shard (tests); otherwise one is chosen at random per process. */
  shard?: number;
}

/**
 * Service-wide unique integer ids without a hot counter item.
 *
 * A process sticks to one of {@link ID_SHARDS} counter items and reserves blocks of ids from it
 * with one atomic ADD. Id = counterValue * ID_SHARDS + shard, so two shards can never produce the
 * same id, and within a process ids only grow. A reserved block that a process never uses is
 * simply skipped. With 64 shards and blocks of 50, 2^53 ids last far beyond any plausible volume.
 */
export class DynamoIdAllocator implements IdGenerator {
  private readonly shard: number;
  private readonly blockSize: number;
  private nextValue = 0;
  private endValue = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: IdAllocatorOptions = {},
  ) {
    this.shard = options.shard ?? Math.floor(Math.random() * ID_SHARDS);
    this.blockSize = options.blockSize ?? 50;
  }

  async next(): Promise<number> {
    while (this.nextValue >= this.endValue) await this.refill(this.blockSize);
    const value = this.nextValue++;
    return value * ID_SHARDS + this.shard;
  }

  /**
   * Makes at least `count` ids available with one write (a bulk write that is about to ask for
   * them), instead of one write per block of {@link IdAllocatorOptions.blockSize}. What is left of
   * the current block is skipped.
   */
  async reserve(count: number): Promise<void> {
    while (this.endValue - this.nextValue < count) await this.refill(Math.max(this.blockSize, count));
  }

  private async refill(size: number): Promise<void> {
    this.pending ??= this.reserveBlock(size).finally(() => {
      this.pending = undefined;
    });
    await this.pending;
  }

  private async reserveBlock(size: number): Promise<void> {
    const result = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: idShardKey(this.shard),
        UpdateExpression: 'ADD #next :block SET entityType = :type',
        ExpressionAttributeNames: { '#next': 'next' },
        ExpressionAttributeValues: { ':block': size, ':type': 'IdShard' },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const end = parseItem(IdShardItem, result.Attributes ?? {}, idShardKey(this.shard)).next;
    // Value 0 is never handed out so that no id is 0..63.
    this.nextValue = Math.max(end - size, 1);
    this.endValue = end;
  }
}
