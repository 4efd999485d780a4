import { describe, expect, it } from 'vitest';
import { MembershipItem } from '../../../shared/db/account-repository';
import { ApiKeyCounterItem, ApiKeyCredentialItem, ApiKeyItem } from '../../../shared/db/api-key-repository';
import { MalformedItemError, parseItem } from '../../../shared/db/item-schema';
import { CompanyItem, LeadListItem, ProspectItem } from '../../../shared/db/lead-items';
import { ProspectRefItem } from '../../../shared/db/prospect-lookup';
import { SenderAccountItem } from '../../../shared/db/sender-account-repository';
import { WebhookAttemptItem, WebhookDeliveryItem } from '../../../shared/db/webhook-repository';

// Items as the document client returns them: what the writers store, number sets as Sets.
const T1 = '2026-11-21T12:00:00.000Z';
const T2 = '2026-11-22T08:30:00.000Z';

/** The message of the MalformedItemError `read` throws. */
function malformed(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof MalformedItemError && error.name === 'MalformedItemError') return error.message;
    throw error;
  }
  throw new Error('expected a MalformedItemError');
}

describe('item schemas', () => {
  it('maps a stored prospect exactly: sorted list ids, empty text fields read as absent, company and custom fields kept', () => {
    const item = {
      pk: 'PROSPECT#0000000000000012',
      sk: 'PROSPECT',
      gsi1pk: 'WORKSPACE#0000000000000007#PROSPECTS',
      gsi1sk: 'PROSPECT#0000000000000012',
      gsi2pk: 'COMPANY#0000000000000005#PROSPECTS',
      gsi2sk: 'PROSPECT#0000000000000012',
      entityType: 'Prospect',
      id: 12,
      workspaceId: 7,
      companyId: 5,
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: '',
      jobTitle: 'CTO',
      status: 'NEW',
      listIds: new Set([40, 3]),
      version: 4,
      customFields: { tier: 'gold', score: 7 },
      createdAt: T1,
      updatedAt: T2,
    };
    expect(parseItem(ProspectItem, item)).toStrictEqual({
      id: 12,
      workspaceId: 7,
      firstName: 'Ada',
      lastName: 'Lovelace',
      status: 'NEW',
      listIds: [3, 40],
      version: 4,
      createdAt: T1,
      updatedAt: T2,
      jobTitle: 'CTO',
      companyId: 5,
      customFields: { tier: 'gold', score: 7 },
    });
  });

  it('maps a prospect in no list (no listIds attribute) to an empty list', () => {
    const item = { pk: 'PROSPECT#0000000000000013', sk: 'PROSPECT', id: 13, workspaceId: 7, firstName: 'A', lastName: 'B', status: 'ARCHIVED', version: 2, createdAt: T1, updatedAt: T1 };
    expect(parseItem(ProspectItem, item)).toStrictEqual({
      id: 13,
      workspaceId: 7,
      firstName: 'A',
      lastName: 'B',
      status: 'ARCHIVED',
      listIds: [],
      version: 2,
      createdAt: T1,
      updatedAt: T1,
    });
  });

  it('refuses a prospect whose name is not a string, naming its key', () => {
    const item = { pk: 'PROSPECT#0000000000000012', sk: 'PROSPECT', entityType: 'Prospect', id: 12, workspaceId: 7, firstName: 42, lastName: 'B', status: 'NEW', version: 1, createdAt: T1, updatedAt: T1 };
    expect(malformed(() => parseItem(ProspectItem, item))).toBe('Malformed Prospect item (pk=PROSPECT#0000000000000012, sk=PROSPECT): firstName: expected string');
  });

  it('maps a stored company exactly and refuses one without its synced version', () => {
    const item = {
      pk: 'COMPANY#0000000000000005',
      sk: 'COMPANY',
      entityType: 'Company',
      id: 5,
      workspaceId: 7,
      name: 'Acme',
      domain: 'acme.test',
      industry: '',
      listIds: new Set([8]),
      version: 3,
      membersSyncedVersion: 2,
      createdAt: T1,
      updatedAt: T2,
    };
    expect(parseItem(CompanyItem, item)).toStrictEqual({
      id: 5,
      workspaceId: 7,
      name: 'Acme',
      listIds: [8],
      version: 3,
      membersSyncedVersion: 2,
      createdAt: T1,
      updatedAt: T2,
      domain: 'acme.test',
    });
    const { membersSyncedVersion, ...legacy } = item;
    expect(malformed(() => parseItem(CompanyItem, legacy))).toBe('Malformed Company item (pk=COMPANY#0000000000000005, sk=COMPANY): membersSyncedVersion: missing');
  });

  it('maps a stored lead list exactly and refuses a count stored as a string', () => {
    const item = {
      pk: 'WORKSPACE#0000000000000007',
      sk: 'LEADLIST#0000000000000009',
      entityType: 'LeadList',
      id: 9,
      workspaceId: 7,
      name: 'Founders',
      searchType: 'PEOPLE',
      status: 'ACTIVE',
      totalProspects: 3,
      createdAt: T1,
      updatedAt: T2,
    };
    expect(parseItem(LeadListItem, item)).toStrictEqual({
      id: 9,
      workspaceId: 7,
      name: 'Founders',
      searchType: 'PEOPLE',
      status: 'ACTIVE',
      totalProspects: 3,
      createdAt: T1,
      updatedAt: T2,
    });
    expect(malformed(() => parseItem(LeadListItem, { ...item, totalProspects: '3' }))).toBe(
      'Malformed LeadList item (pk=WORKSPACE#0000000000000007, sk=LEADLIST#0000000000000009): totalProspects: expected number',
    );
    expect(malformed(() => parseItem(LeadListItem, { ...item, searchType: 'ACCOUNTS' }))).toBe(
      'Malformed LeadList item (pk=WORKSPACE#0000000000000007, sk=LEADLIST#0000000000000009): searchType: expected ("PEOPLE" | "COMPANY")',
    );
  });

  it('maps API key records, credentials and the counter exactly', () => {
    const record = {
      pk: 'USER#0000000000000003',
      sk: 'APIKEY#0000000000000010',
      entityType: 'ApiKey',
      id: 10,
      userId: 3,
      workspaceId: 4,
      name: 'Server',
      prefix: '0a1b2c3d4e5f',
      isActive: true,
      lastUsed: null,
      createdAt: T1,
      updatedAt: T1,
      usageKeyId: 'usage-1',
    };
    expect(parseItem(ApiKeyItem, record)).toStrictEqual({
      id: 10,
      userId: 3,
      workspaceId: 4,
      name: 'Server',
      prefix: '0a1b2c3d4e5f',
      isActive: true,
      lastUsed: null,
      createdAt: T1,
      updatedAt: T1,
      usageKeyId: 'usage-1',
    });
    expect(malformed(() => parseItem(ApiKeyItem, { ...record, isActive: 'yes' }))).toBe(
      'Malformed ApiKey item (pk=USER#0000000000000003, sk=APIKEY#0000000000000010): isActive: expected boolean',
    );

    const credential = { pk: 'APIKEY_PREFIX#0a1b2c3d4e5f', sk: 'CREDENTIAL', entityType: 'ApiKeyCredential', prefix: '0a1b2c3d4e5f', keyId: 10, userId: 3, workspaceId: 4, secretHash: 'ab', usageKeyValue: 'v' };
    expect(parseItem(ApiKeyCredentialItem, credential)).toStrictEqual({ prefix: '0a1b2c3d4e5f', keyId: 10, userId: 3, workspaceId: 4, secretHash: 'ab', usageKeyValue: 'v' });
    expect(parseItem(ApiKeyCredentialItem, { ...credential, lastUsedWrittenAt: T2 })).toStrictEqual({
      prefix: '0a1b2c3d4e5f',
      keyId: 10,
      userId: 3,
      workspaceId: 4,
      secretHash: 'ab',
      usageKeyValue: 'v',
      lastUsedWrittenAt: T2,
    });

    const counter = { pk: 'USER#0000000000000003', sk: 'APIKEY_COUNTER', entityType: 'ApiKeyCounter', userId: 3, activeKeys: 25 };
    expect(parseItem(ApiKeyCounterItem, counter)).toStrictEqual({ activeKeys: 25 });
  });

  it('reads optional and null attributes as the writers leave them', () => {
    const account = {
      pk: 'WORKSPACE#0000000000000007',
      sk: 'SENDER_ACCOUNT#0000000000000020',
      entityType: 'SenderAccount',
      id: 20,
      workspaceId: 7,
      name: 'Ada',
      type: 'NETWORK',
      status: 'OK',
      providerAccountId: 'acc-1',
      providerType: 'LINKEDIN',
      createdAt: T1,
      updatedAt: T1,
    };
    expect(parseItem(SenderAccountItem, account)).toStrictEqual({
      id: 20,
      workspaceId: 7,
      name: 'Ada',
      type: 'NETWORK',
      status: 'OK',
      providerAccountId: 'acc-1',
      providerType: 'LINKEDIN',
      ownProviderUserId: null,
      createdAt: T1,
      updatedAt: T1,
    });
    // A completion that lands after the delivery record expired leaves the status alone.
    expect(parseItem(WebhookDeliveryItem, { pk: 'USER#0000000000000003', sk: 'WEBHOOK_DELIVERY#e1', status: 'DELIVERED' })).toStrictEqual({
      status: 'DELIVERED',
      attempts: 0,
    });
    const attempt = {
      pk: 'USER#0000000000000003',
      sk: `WEBHOOK_ATTEMPT#${T1}#e1#01`,
      entityType: 'WebhookAttempt',
      userId: 3,
      eventId: 'e1',
      eventType: 'incoming_message',
      attempt: 1,
      at: T1,
      outcome: 'timeout',
      statusCode: null,
      error: 'No answer in time',
      durationMs: 10000,
      nextAttemptAt: T2,
      test: false,
      ttl: 1800000000,
    };
    expect(parseItem(WebhookAttemptItem, attempt)).toStrictEqual({
      userId: 3,
      eventId: 'e1',
      eventType: 'incoming_message',
      attempt: 1,
      at: T1,
      outcome: 'timeout',
      statusCode: null,
      error: 'No answer in time',
      durationMs: 10000,
      nextAttemptAt: T2,
      test: false,
    });
    expect(malformed(() => parseItem(WebhookAttemptItem, { ...attempt, outcome: 'exploded' }))).toBe(
      `Malformed WebhookAttempt item (pk=USER#0000000000000003, sk=WEBHOOK_ATTEMPT#${T1}#e1#01): outcome: expected ("delivered" | "http_error" | "timeout" | "blocked" | "network_error" | "skipped")`,
    );
  });

  it('refuses a membership with a role the service does not have', () => {
    const membership = { pk: 'USER#0000000000000003', sk: 'MEMBERSHIP#0000000000000007', entityType: 'Membership', userId: 3, workspaceId: 7, workspaceName: 'W', role: 'ADMIN', createdAt: T1 };
    expect(malformed(() => parseItem(MembershipItem, membership))).toBe(
      'Malformed Membership item (pk=USER#0000000000000003, sk=MEMBERSHIP#0000000000000007): role: expected ("OWNER" | "MEMBER")',
    );
    expect(parseItem(MembershipItem, { ...membership, role: 'MEMBER' })).toStrictEqual({ userId: 3, workspaceId: 7, workspaceName: 'W', role: 'MEMBER', createdAt: T1 });
  });

  it('maps the projected prospect of the connection check, naming the key the projection left out', () => {
    const key = { pk: 'PROSPECT#0000000000000012', sk: 'PROSPECT' };
    expect(parseItem(ProspectRefItem, { id: 12, workspaceId: 7, networkProfileUrl: '' }, key)).toStrictEqual({ id: 12, workspaceId: 7, networkProfileUrl: null });
    expect(parseItem(ProspectRefItem, { id: 12, workspaceId: 7, networkProfileUrl: 'https://www.linkedin.com/in/ada' }, key)).toStrictEqual({
      id: 12,
      workspaceId: 7,
      networkProfileUrl: 'https://www.linkedin.com/in/ada',
    });
    expect(malformed(() => parseItem(ProspectRefItem, { id: 12, workspaceId: '7' }, key))).toBe(
      'Malformed Prospect item (pk=PROSPECT#0000000000000012, sk=PROSPECT): workspaceId: expected number',
    );
  });
});
