import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../infra/local/table';
import { DynamoAccountRepository } from '../../../shared/db/account-repository';
import { makeDocClient } from '../../../shared/db/client';
import type { Membership } from '../../../shared/domain/accounts/account';

/**
 * Adding a member is one conditional Put. When its answer is lost, the AWS SDK sends it again, and
 * that second send fails its own condition: the add must still succeed, not answer 409 "already a
 * member". A client here sends every Put twice, as the SDK does then.
 */
describe('adding a member whose write was sent twice', () => {
  const real = makeDocClient({ endpoint: inject('dynamodbEndpoint') });
  const tableName = `members${randomBytes(4).toString('hex')}`;
  const twice = {
    send: async (command: unknown) => {
      if (!(command instanceof PutCommand)) return real.send(command as never);
      await real.send(command);
      return real.send(command);
    },
  } as unknown as DynamoDBDocumentClient;
  const link = (userId: number, linkedAt: string): Membership => ({
    userId,
    workspaceId: 8,
    workspaceName: 'Acme',
    role: 'MEMBER',
    createdAt: '2026-11-20T09:00:00.000Z',
    linkedAt,
  });

  beforeAll(async () => ensureTable(real, tableName));

  it('is added once, and answers as added', async () => {
    const accounts = new DynamoAccountRepository(twice, tableName);
    await expect(accounts.addMember(link(5, '2026-11-27T10:00:00.000Z'))).resolves.toBeUndefined();
    expect(await new DynamoAccountRepository(real, tableName).getMembership(5, 8)).toEqual(link(5, '2026-11-27T10:00:00.000Z'));
  });

  it('a member added before is still a 409, even by an add with the same values in the same millisecond', async () => {
    const accounts = new DynamoAccountRepository(real, tableName);
    await accounts.addMember(link(6, '2026-11-27T10:00:00.000Z'));
    for (const linkedAt of ['2026-11-27T10:05:00.000Z', '2026-11-27T10:00:00.000Z']) {
      await expect(accounts.addMember(link(6, linkedAt))).rejects.toMatchObject({ kind: 'conflict', message: 'User is already a member of this workspace' });
    }
  });
});
