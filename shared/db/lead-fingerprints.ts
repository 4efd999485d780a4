import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Fingerprint, FingerprintStamp } from '../domain/leads/import-fingerprint';
import { batchGetAll } from './batch-get';
import { parseItem } from './item-schema';
import { companyKey, leadIdentityKey, prospectKey } from './keys';
import { FingerprintedGuardItem } from './lead-items';
import { type TransactItem, type TransactUnit, commitUnits } from './transactions';

/** Transactions of checks or stamps in flight at once. */
const CONCURRENCY = 4;

/** A guard item; the one the change's import row stamps carries the row's fingerprint. */
export function guardItem(workspaceId: number, kind: 'PROSPECT' | 'COMPANY', identity: string, leadId: number, stamp: FingerprintStamp | undefined) {
  return {
    ...leadIdentityKey(workspaceId, kind, identity),
    entityType: 'LeadIdentity',
    identity,
    leadId,
    ...(stamp?.identity === identity ? fingerprintAttributes(stamp) : {}),
  };
}

const fingerprintAttributes = (stamp: Fingerprint) => ({
  fp: stamp.fp,
  fpVersion: stamp.leadVersion,
  ...(stamp.companyId !== undefined ? { fpCompanyId: stamp.companyId, fpCompanyVersion: stamp.companyVersion } : {}),
});

/**
 * The fingerprints of import rows on prospect identity guards (see
 * shared/domain/leads/import-fingerprint.ts): read, confirmed without reading the leads, recorded.
 */
export class LeadFingerprints {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(workspaceId: number, identities: string[]): Promise<{ prints: Map<string, Fingerprint>; unclaimed: Set<string> }> {
    // Eventually consistent (half the read): confirmUnchanged checks what these say before it counts.
    const items = await batchGetAll(
      this.db,
      this.tableName,
      identities.map((identity) => leadIdentityKey(workspaceId, 'PROSPECT', identity)),
    );
    const prints = new Map<string, Fingerprint>();
    const unclaimed = new Set(identities);
    for (const item of items) {
      const guard = parseItem(FingerprintedGuardItem, item);
      unclaimed.delete(guard.identity);
      if (guard.fp !== undefined && guard.fpVersion !== undefined) {
        prints.set(guard.identity, {
          leadId: guard.leadId,
          fp: guard.fp,
          leadVersion: guard.fpVersion,
          ...(guard.fpCompanyId !== undefined ? { companyId: guard.fpCompanyId, companyVersion: guard.fpCompanyVersion } : {}),
        });
      }
    }
    return { prints, unclaimed };
  }

  async confirmUnchanged<O>(checks: { owner: O; workspaceId: number; fingerprint: Fingerprint }[]): Promise<Set<O>> {
    type Owner = { row: O } | { companyId: number };
    const check = (key: { pk: string; sk: string }, version: number, workspaceId: number): TransactItem => ({
      ConditionCheck: {
        TableName: this.tableName,
        Key: key,
        ConditionExpression: '#version = :version AND workspaceId = :workspaceId',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': version, ':workspaceId': workspaceId },
      },
    });
    const units: TransactUnit<Owner>[] = checks.map(({ owner, workspaceId, fingerprint }) => ({
      owner: { row: owner },
      actions: [check(prospectKey(fingerprint.leadId), fingerprint.leadVersion, workspaceId)],
    }));
    const companies = new Map<number, { version: number; workspaceId: number }>();
    for (const { workspaceId, fingerprint } of checks) {
      if (fingerprint.companyId !== undefined) companies.set(fingerprint.companyId, { version: fingerprint.companyVersion ?? -1, workspaceId });
    }
    for (const [companyId, { version, workspaceId }] of companies) {
      units.push({ owner: { companyId }, actions: [check(companyKey(companyId), version, workspaceId)] });
    }
    const refused = await commitUnits(this.db, units, { concurrency: CONCURRENCY });
    const refusedCompanies = new Set([...refused].flatMap((owner) => ('companyId' in owner ? [owner.companyId] : [])));
    return new Set(
      checks
        .filter(({ owner, fingerprint }) =>
          [...refused].some((r) => 'row' in r && r.row === owner) || (fingerprint.companyId !== undefined && refusedCompanies.has(fingerprint.companyId)),
        )
        .map(({ owner }) => owner),
    );
  }

  async stamp(workspaceId: number, stamps: FingerprintStamp[]): Promise<void> {
    await commitUnits(
      this.db,
      stamps.map((stamp) => ({ owner: stamp.identity, actions: [stampAction(this.tableName, workspaceId, stamp)] })),
      { concurrency: CONCURRENCY },
    );
  }
}

/** Records a row's fingerprint on a guard, provided the guard is still the lead's. */
export function stampAction(tableName: string, workspaceId: number, stamp: FingerprintStamp): TransactItem {
  const attributes = fingerprintAttributes(stamp);
  return {
    Update: {
      TableName: tableName,
      Key: leadIdentityKey(workspaceId, 'PROSPECT', stamp.identity),
      UpdateExpression: `SET ${Object.keys(attributes).map((name) => `${name} = :${name}`).join(', ')}${
        stamp.companyId === undefined ? ' REMOVE fpCompanyId, fpCompanyVersion' : ''
      }`,
      ConditionExpression: 'leadId = :id',
      ExpressionAttributeValues: { ':id': stamp.leadId, ...Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value])) },
    },
  };
}
