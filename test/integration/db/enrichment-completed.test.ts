import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { makeDocClient } from '../../../shared/db/client';
import { completedItem, jobItem } from '../../../shared/db/enrichment-items';
import { DynamoEnrichmentRepository } from '../../../shared/db/enrichment-repository';
import type { EnrichmentType } from '../../../shared/domain/enrichment/enrichment';
import { newJob } from '../../../shared/domain/enrichment/enrichment-service';

/**
 * The jobs a start leaves out against DynamoDB Local: those running, and, for a start that waited
 * while they ran, those that completed since it arrived (`since`), by the field they searched.
 */
describe('enrichment jobs completed while a start waited', () => {
  const db = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `completed${randomBytes(4).toString('hex')}`;
  const jobs = new DynamoEnrichmentRepository(db, tableName);
  const WORKSPACE = 41;

  beforeAll(async () => {
    await ensureTable(db, tableName);
    const done = async (id: number, type: EnrichmentType, selection: number[], completedAt: string) => {
      const job = newJob({ id, workspaceId: WORKSPACE, userId: 1, listId: 500, type, mode: 'sync', selection, webhookUrl: null, at: '2026-11-27T09:59:00.000Z' });
      await db.send(new PutCommand({ TableName: tableName, Item: jobItem({ ...job, status: 'COMPLETED', completedAt }) }));
      await db.send(new PutCommand({ TableName: tableName, Item: completedItem(job, completedAt) }));
    };
    await done(1, 'FIND_EMAIL', [11, 12], '2026-11-27T10:00:00.000Z');
    await done(2, 'FIND_PHONE', [13], '2026-11-27T10:00:00.500Z');
    await done(3, 'FIND_EMAIL_WATERFALL', [14], '2026-11-27T09:59:59.999Z');
  });
  afterAll(() => db.destroy());

  const busy = async (only: Parameters<DynamoEnrichmentRepository['busyInWorkspace']>[1]) => [...(await jobs.busyInWorkspace(WORKSPACE, only))].sort();

  it('leaves out what a job searching the field completed at or after the start’s arrival', async () => {
    expect(await busy({ field: 'email', since: '2026-11-27T10:00:00.000Z' })).toEqual([11, 12]);
    expect(await busy({ field: 'email', since: '2026-11-27T09:59:59.999Z' })).toEqual([11, 12, 14]);
    expect(await busy({ field: 'phone', since: '2026-11-27T10:00:00.000Z' })).toEqual([13]);
    expect(await busy({ since: '2026-11-27T10:00:00.000Z' })).toEqual([11, 12, 13]);
  });

  it('leaves out none of them for a start that arrived after, or for a count and the list views (no `since`)', async () => {
    expect(await busy({ field: 'email', since: '2026-11-27T10:00:00.001Z' })).toEqual([]);
    expect(await busy({ field: 'email' })).toEqual([]);
    expect(await busy({ list: 500 })).toEqual([]);
  });

  it('keeps the mark of a completed job a quarter of an hour (TTL)', () => {
    const job = newJob({ id: 4, workspaceId: WORKSPACE, userId: 1, listId: 500, type: 'FIND_EMAIL', mode: 'sync', selection: [1], webhookUrl: null, at: '2026-11-27T10:00:00.000Z' });
    expect(completedItem(job, '2026-11-27T10:00:00.000Z')).toEqual({
      pk: 'WORKSPACE#0000000000000041#ENRICHED',
      sk: '2026-11-27T10:00:00.000Z#0000000000000004',
      entityType: 'EnrichmentCompleted',
      jobId: 4,
      field: 'email',
      ttl: Date.parse('2026-11-27T10:15:00.000Z') / 1000,
    });
  });
});
