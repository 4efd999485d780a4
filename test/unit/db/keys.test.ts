import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES, keyEndingIn } from '../../../shared/db/key-text';
import * as keys from '../../../shared/db/keys';
import { SORT_INDEX, memberItem } from '../../../shared/db/lead-items';
import { decodeAttemptCursor, encodeAttemptCursor } from '../../../shared/db/webhook-repository';
import {
  apiKeyCredentialKey,
  apiKeyRecordKey,
  idShardKey,
  membershipByWorkspace,
  membershipKey,
  padId,
  sessionKey,
  userEmailKey,
  userKey,
  workspaceKey,
} from '../../../shared/db/keys';

// Keys are a persisted contract: these strings must not change without a migration.
describe('key builders', () => {
  it('pads ids to 16 digits so sort keys order numerically', () => {
    expect(padId(42)).toBe('0000000000000042');
    expect(padId(9) < padId(10)).toBe(true);
    expect(padId(2 ** 53 - 1)).toBe('9007199254740991');
  });

  it('builds the account keys', () => {
    expect(userKey(7)).toEqual({ pk: 'USER#0000000000000007', sk: 'USER' });
    expect(userEmailKey('a@b.co')).toEqual({ pk: 'EMAIL#a@b.co', sk: 'EMAIL' });
    expect(workspaceKey(8)).toEqual({ pk: 'WORKSPACE#0000000000000008', sk: 'WORKSPACE' });
    expect(membershipKey(7, 8)).toEqual({ pk: 'USER#0000000000000007', sk: 'MEMBERSHIP#0000000000000008' });
    expect(membershipByWorkspace(8, 7)).toEqual({ gsi1pk: 'WORKSPACE#0000000000000008#MEMBERS', gsi1sk: 'USER#0000000000000007' });
    expect(sessionKey('abc')).toEqual({ pk: 'SESSION#abc', sk: 'SESSION' });
  });

  it('builds the API key keys', () => {
    expect(apiKeyRecordKey(7, 9)).toEqual({ pk: 'USER#0000000000000007', sk: 'APIKEY#0000000000000009' });
    expect(apiKeyCredentialKey('0a1b2c3d4e5f')).toEqual({ pk: 'APIKEY_PREFIX#0a1b2c3d4e5f', sk: 'CREDENTIAL' });
    expect(idShardKey(3)).toEqual({ pk: 'IDSHARD#003', sk: 'IDSHARD' });
  });
});

const USER = 'USER#0000000000000007';
const WORKSPACE = 'WORKSPACE#0000000000000008';

/**
 * One exact expectation per export of keys.ts. The mapped type makes the compiler ask for an
 * entry when an export is added; the test below does the same at run time.
 */
const EXACT: { [name in keyof typeof keys]: () => void } = {
  padId: () => {
    expect(keys.padId(0)).toBe('0000000000000000');
    expect(keys.padId(1234567)).toBe('0000000001234567');
  },
  userKey: () => expect(keys.userKey(7)).toEqual({ pk: USER, sk: 'USER' }),
  userEmailKey: () => expect(keys.userEmailKey('ada@example.com')).toEqual({ pk: 'EMAIL#ada@example.com', sk: 'EMAIL' }),
  workspaceKey: () => expect(keys.workspaceKey(8)).toEqual({ pk: WORKSPACE, sk: 'WORKSPACE' }),
  membershipKey: () => expect(keys.membershipKey(7, 8)).toEqual({ pk: USER, sk: 'MEMBERSHIP#0000000000000008' }),
  MEMBERSHIP_PREFIX: () => expect(keys.MEMBERSHIP_PREFIX).toBe('MEMBERSHIP#'),
  membershipByWorkspace: () =>
    expect(keys.membershipByWorkspace(8, 7)).toEqual({ gsi1pk: 'WORKSPACE#0000000000000008#MEMBERS', gsi1sk: USER }),
  apiKeyRecordKey: () => expect(keys.apiKeyRecordKey(7, 9)).toEqual({ pk: USER, sk: 'APIKEY#0000000000000009' }),
  API_KEY_RECORD_PREFIX: () => expect(keys.API_KEY_RECORD_PREFIX).toBe('APIKEY#'),
  apiKeyCounterKey: () => {
    expect(keys.apiKeyCounterKey(7)).toEqual({ pk: USER, sk: 'APIKEY_COUNTER' });
    // Listing a user's keys (begins_with APIKEY#) must never return the counter.
    expect(keys.apiKeyCounterKey(7).sk.startsWith(keys.API_KEY_RECORD_PREFIX)).toBe(false);
  },
  apiKeyCredentialKey: () => expect(keys.apiKeyCredentialKey('0a1b2c3d4e5f')).toEqual({ pk: 'APIKEY_PREFIX#0a1b2c3d4e5f', sk: 'CREDENTIAL' }),
  sessionKey: () =>
    expect(keys.sessionKey('5f0c8e8e-7d1a-4c1e-9a55-0b6f3d2c1a00')).toEqual({ pk: 'SESSION#5f0c8e8e-7d1a-4c1e-9a55-0b6f3d2c1a00', sk: 'SESSION' }),
  idShardKey: () => {
    expect(keys.idShardKey(0)).toEqual({ pk: 'IDSHARD#000', sk: 'IDSHARD' });
    expect(keys.idShardKey(63)).toEqual({ pk: 'IDSHARD#063', sk: 'IDSHARD' });
  },
  leadListKey: () => expect(keys.leadListKey(8, 123)).toEqual({ pk: WORKSPACE, sk: 'LEADLIST#0000000000000123' }),
  LEAD_LIST_PREFIX: () => expect(keys.LEAD_LIST_PREFIX).toBe('LEADLIST#'),
  listMemberKey: () => expect(keys.listMemberKey(123, 45)).toEqual({ pk: 'LEADLIST#0000000000000123#MEMBERS', sk: 'LEAD#0000000000000045' }),
  LIST_MEMBER_PREFIX: () => expect(keys.LIST_MEMBER_PREFIX).toBe('LEAD#'),
  digestChunkKey: () => expect(keys.digestChunkKey(123, 7)).toEqual({ pk: 'LEADLIST#0000000000000123#MEMBERS', sk: 'DIGEST#000007' }),
  DIGEST_PREFIX: () => expect(keys.DIGEST_PREFIX).toBe('DIGEST#'),
  leadJournalKey: () => expect(keys.leadJournalKey('abc')).toEqual({ pk: 'LEADJOURNAL#abc', sk: 'LEADJOURNAL' }),
  prospectKey: () => expect(keys.prospectKey(45)).toEqual({ pk: 'PROSPECT#0000000000000045', sk: 'PROSPECT' }),
  prospectsByWorkspace: () =>
    expect(keys.prospectsByWorkspace(8, 45)).toEqual({ gsi1pk: 'WORKSPACE#0000000000000008#PROSPECTS', gsi1sk: 'PROSPECT#0000000000000045' }),
  prospectsByCompany: () =>
    expect(keys.prospectsByCompany(66, 45)).toEqual({ gsi2pk: 'COMPANY#0000000000000066#PROSPECTS', gsi2sk: 'PROSPECT#0000000000000045' }),
  companyKey: () => expect(keys.companyKey(66)).toEqual({ pk: 'COMPANY#0000000000000066', sk: 'COMPANY' }),
  companiesByWorkspace: () =>
    expect(keys.companiesByWorkspace(8, 66)).toEqual({ gsi1pk: 'WORKSPACE#0000000000000008#COMPANIES', gsi1sk: 'COMPANY#0000000000000066' }),
  workspaceLeadCountsKey: () => {
    expect(keys.workspaceLeadCountsKey(8)).toEqual({ pk: WORKSPACE, sk: 'LEADCOUNTS' });
    // Listing a workspace's lists (begins_with LEADLIST#) must never return the counts.
    expect(keys.workspaceLeadCountsKey(8).sk.startsWith(keys.LEAD_LIST_PREFIX)).toBe(false);
  },
  leadIdentityKey: () => {
    // 2,048 bytes with its prefix: DynamoDB's limit, kept as it is; one byte more is hashed.
    const url = `url:https://www.linkedin.com/in/${'%E7%95%8C'.repeat(219)}abcdef`;
    expect(keys.leadIdentityKey(8, 'PROSPECT', url).pk).toBe(`LEADIDENTITY#0000000000000008#PROSPECT#${url}`);
    expect(keys.leadIdentityKey(8, 'PROSPECT', `${url}g`).pk).toBe(
      `LEADIDENTITY#0000000000000008#PROSPECT#~sha256:${createHash('sha256').update(`${url}g`).digest('hex')}`,
    );
    expect(keys.leadIdentityKey(8, 'PROSPECT', 'email:ada@example.com')).toEqual({
      pk: 'LEADIDENTITY#0000000000000008#PROSPECT#email:ada@example.com',
      sk: 'LEADIDENTITY',
    });
    expect(keys.leadIdentityKey(8, 'COMPANY', 'domain:acme.test')).toEqual({
      pk: 'LEADIDENTITY#0000000000000008#COMPANY#domain:acme.test',
      sk: 'LEADIDENTITY',
    });
  },
  searchUsageKey: () => expect(keys.searchUsageKey(8, '2026-11')).toEqual({ pk: WORKSPACE, sk: 'SEARCHUSAGE#2026-11' }),
  senderAccountKey: () => expect(keys.senderAccountKey(8, 20)).toEqual({ pk: WORKSPACE, sk: 'SENDER_ACCOUNT#0000000000000020' }),
  SENDER_ACCOUNT_PREFIX: () => expect(keys.SENDER_ACCOUNT_PREFIX).toBe('SENDER_ACCOUNT#'),
  providerAccountKey: () => expect(keys.providerAccountKey('acc_9Xy')).toEqual({ pk: 'PROVIDER_ACCOUNT#acc_9Xy', sk: 'PROVIDER_ACCOUNT' }),
  formerAccountKey: () => {
    expect(keys.formerAccountKey(8, 'acc_9Xy')).toEqual({ pk: WORKSPACE, sk: 'FORMER_ACCOUNT#acc_9Xy' });
    // Listing a workspace's accounts (begins_with SENDER_ACCOUNT#) must never return it.
    expect(keys.formerAccountKey(8, 'acc_9Xy').sk.startsWith(keys.SENDER_ACCOUNT_PREFIX)).toBe(false);
  },
  webhookSettingsKey: () => expect(keys.webhookSettingsKey(7)).toEqual({ pk: USER, sk: 'WEBHOOK' }),
  webhookDeliveryKey: () => expect(keys.webhookDeliveryKey(7, 'evt_1')).toEqual({ pk: USER, sk: 'WEBHOOK_DELIVERY#evt_1' }),
  webhookAttemptKey: () => {
    expect(keys.webhookAttemptKey(7, '2026-11-21T12:00:00.000Z', 'evt_1', 2)).toEqual({
      pk: USER,
      sk: 'WEBHOOK_ATTEMPT#2026-11-21T12:00:00.000Z#evt_1#02',
    });
    expect(keys.webhookAttemptKey(7, '2026-11-21T12:00:00.000Z', 'evt_1', 12).sk).toBe('WEBHOOK_ATTEMPT#2026-11-21T12:00:00.000Z#evt_1#12');
  },
  WEBHOOK_ATTEMPT_PREFIX: () => expect(keys.WEBHOOK_ATTEMPT_PREFIX).toBe('WEBHOOK_ATTEMPT#'),
  inboundMessageKey: () =>
    expect(keys.inboundMessageKey(8, 'msg-Ab1')).toEqual({ pk: 'INBOUND_MESSAGE#0000000000000008#msg-Ab1', sk: 'INBOUND_MESSAGE' }),
  campaignKey: () => expect(keys.campaignKey(31)).toEqual({ pk: 'CAMPAIGN#0000000000000031', sk: 'CAMPAIGN' }),
  campaignsByWorkspace: () =>
    expect(keys.campaignsByWorkspace(8, 31)).toEqual({ gsi1pk: `${WORKSPACE}#CAMPAIGNS`, gsi1sk: 'CAMPAIGN#0000000000000031' }),
  campaignNodeKey: () => expect(keys.campaignNodeKey(31, 40)).toEqual({ pk: 'CAMPAIGN#0000000000000031', sk: 'NODE#0000000000000040' }),
  CAMPAIGN_NODE_PREFIX: () => expect(keys.CAMPAIGN_NODE_PREFIX).toBe('NODE#'),
  campaignNameKey: () =>
    expect(keys.campaignNameKey(8, 'Q4 (2)')).toEqual({ pk: `CAMPAIGNNAME#0000000000000008#Q4 (2)`, sk: 'CAMPAIGNNAME' }),
  campaignProspectKey: () =>
    expect(keys.campaignProspectKey(31, 45)).toEqual({ pk: 'CAMPAIGN#0000000000000031#PROSPECTS', sk: 'PROSPECT#0000000000000045' }),
  campaignProspectByStatus: () => expect(keys.campaignProspectByStatus('IN_REVIEW', 45)).toEqual({ lsi1sk: 'IN_REVIEW#0000000000000045' }),
  campaignProspectUnscheduled: () => expect(keys.campaignProspectUnscheduled(45)).toEqual({ lsi2sk: 'UNSCHEDULED#0000000000000045' }),
  UNSCHEDULED_PREFIX: () => expect(keys.UNSCHEDULED_PREFIX).toBe('UNSCHEDULED#'),
  DUE_SHARDS: () => expect(keys.DUE_SHARDS).toBe(16),
  dueShard: () => {
    expect(keys.dueShard(45)).toBe(4);
    // 160 ids of one allocator shard (equal modulo 64): `id % 16` put them all in shard 5.
    const counts = new Array(16).fill(0);
    for (let k = 0; k < 160; k += 1) counts[keys.dueShard(5 + 64 * k)] += 1;
    expect(counts).toEqual([10, 6, 14, 8, 8, 11, 9, 10, 6, 9, 9, 6, 11, 17, 10, 16]);
  },
  actionDue: () =>
    expect(keys.actionDue('2026-11-23T09:00:00.000Z', 31, 45)).toEqual({
      gsi2pk: 'DUE#04',
      gsi2sk: '2026-11-23T09:00:00.000Z#0000000000000031#0000000000000045',
    }),
  outreachActionKey: () =>
    expect(keys.outreachActionKey(31, 45)).toEqual({ pk: 'CAMPAIGN#0000000000000031#ACTIONS', sk: 'PROSPECT#0000000000000045' }),
  actionParked: () => expect(keys.actionParked(45)).toEqual({ lsi2sk: 'PARKED#0000000000000045' }),
  PARKED_PREFIX: () => expect(keys.PARKED_PREFIX).toBe('PARKED#'),
  actionPastCap: () => expect(keys.actionPastCap('INVITE', '2026-12-09T10:00:00.000Z', 45)).toEqual({ lsi3sk: 'PASTCAP#INVITE#2026-12-09T10:00:00.000Z#0000000000000045' }),
  pastCapPrefix: () => expect(keys.pastCapPrefix('EMAIL')).toBe('PASTCAP#EMAIL#'),
  dispatchLeaseKey: () => expect(keys.dispatchLeaseKey(3)).toEqual({ pk: 'DISPATCH#03', sk: 'LEASE' }),
  campaignSendCounterKey: () =>
    expect(keys.campaignSendCounterKey(31, '2026-11-23', 'EMAIL')).toEqual({ pk: 'SENDCOUNT#CAMPAIGN#0000000000000031#2026-11-23', sk: 'EMAIL' }),
  accountSendCounterKey: () =>
    expect(keys.accountSendCounterKey(9, '2026-11-23', 'INVITE')).toEqual({ pk: 'SENDCOUNT#ACCOUNT#0000000000000009#2026-11-23', sk: 'INVITE' }),
  actionOutcomeKey: () =>
    expect(keys.actionOutcomeKey(31, 45, '2026-11-23T09:00:00.000Z', 7)).toEqual({
      pk: 'CAMPAIGN#0000000000000031#OUTCOMES',
      sk: 'PROSPECT#0000000000000045#2026-11-23T09:00:00.000Z#NODE#0000000000000007',
    }),
  creditBalanceKey: () => expect(keys.creditBalanceKey(8)).toEqual({ pk: WORKSPACE, sk: 'CREDITS' }),
  creditLedgerKey: () =>
    expect(keys.creditLedgerKey(8, '2026-11-21T12:00:00.000Z', 9)).toEqual({
      pk: 'WORKSPACE#0000000000000008#LEDGER',
      sk: 'ENTRY#2026-11-21T12:00:00.000Z#0000000000000009',
    }),
  CREDIT_LEDGER_PREFIX: () => expect(keys.CREDIT_LEDGER_PREFIX).toBe('ENTRY#'),
  creditGrantKey: () => expect(keys.creditGrantKey(8, 'dev-welcome')).toEqual({ pk: WORKSPACE, sk: 'CREDITGRANT#dev-welcome' }),
  enrichmentJobKey: () => expect(keys.enrichmentJobKey(12)).toEqual({ pk: 'ENRICHJOB#0000000000000012', sk: 'JOB' }),
  enrichmentJobRunning: () =>
    expect(keys.enrichmentJobRunning('2026-11-21T12:00:00.000Z', 12)).toEqual({
      gsi2pk: 'ENRICHJOBS#RUNNING',
      gsi2sk: '2026-11-21T12:00:00.000Z#0000000000000012',
    }),
  enrichmentChunkKey: () =>
    expect(keys.enrichmentChunkKey(124, 12, 3)).toEqual({ pk: 'LEADLIST#0000000000000124#MEMBERS', sk: 'ENRICHING#0000000000000012#00003' }),
  ENRICHMENT_CHUNK_PREFIX: () => expect(keys.ENRICHMENT_CHUNK_PREFIX).toBe('ENRICHING#'),
  sentEmailKey: () => expect(keys.sentEmailKey('trk_1')).toEqual({ pk: 'SENT_EMAIL#trk_1', sk: 'SENT_EMAIL' }),
  messageIdLinkKey: () => expect(keys.messageIdLinkKey('<a1@sandbox.local>')).toEqual({ pk: 'MESSAGE_ID#<a1@sandbox.local>', sk: 'SENT_EMAIL' }),
  sentEmailByMessageId: () =>
    expect(keys.sentEmailByMessageId('<a1@sandbox.local>')).toEqual({ gsi1pk: 'MESSAGE_ID#<a1@sandbox.local>', gsi1sk: 'SENT_EMAIL' }),
  enrichmentStartKey: () => expect(keys.enrichmentStartKey(7)).toEqual({ pk: 'WORKSPACE#0000000000000007#ENRICH_START', sk: 'LEASE' }),
  requestLeaseKey: () => expect(keys.requestLeaseKey('ADD_FROM_LIST#0000000000000009#0000000000000004')).toEqual({ pk: 'LEASE#ADD_FROM_LIST#0000000000000009#0000000000000004', sk: 'LEASE' }),
  enrichmentRunningKey: () =>
    expect(keys.enrichmentRunningKey(7, 12)).toEqual({ pk: 'WORKSPACE#0000000000000007#ENRICHING', sk: 'JOB#0000000000000012' }),
  enrichmentCompletedKey: () =>
    expect(keys.enrichmentCompletedKey(7, '2026-11-27T03:00:00.000Z', 12)).toEqual({
      pk: 'WORKSPACE#0000000000000007#ENRICHED',
      sk: '2026-11-27T03:00:00.000Z#0000000000000012',
    }),
  campaignEventKey: () =>
    expect(keys.campaignEventKey(7, 'REPLIED', 45, 'msg_1')).toEqual({
      pk: 'CAMPAIGN#0000000000000007#EVENTS',
      sk: 'REPLIED#0000000000000045#msg_1',
    }),
  campaignStatsKey: () => {
    expect(keys.campaignStatsKey(7, '2026-11-05')).toEqual({ pk: 'CAMPAIGN#0000000000000007#STATS', sk: 'DAY#2026-11-05' });
    expect(keys.campaignStatsKey(7, null)).toEqual({ pk: 'CAMPAIGN#0000000000000007#STATS', sk: 'TOTAL' });
  },
  campaignReachKey: () =>
    expect(keys.campaignReachKey(7, 45)).toEqual({ pk: 'CAMPAIGN#0000000000000007#REACH', sk: 'PROSPECT#0000000000000045' }),
  workspaceStatsKey: () => {
    expect(keys.workspaceStatsKey(3, '2026-11-05', 7, 9)).toEqual({
      pk: 'WORKSPACE#0000000000000003#STATS',
      sk: 'DAY#2026-11-05#CAMPAIGN#0000000000000007#ACCOUNT#0000000000000009',
    });
    expect(keys.workspaceStatsKey(3, null, 7, 0)).toEqual({
      pk: 'WORKSPACE#0000000000000003#STATS',
      sk: 'TOTAL#CAMPAIGN#0000000000000007#ACCOUNT#0000000000000000',
    });
  },
  conversationMessageKey: () => {
    expect(keys.conversationMessageKey(3, 45, '2026-11-23T09:00:00.000Z', 'trk_1')).toEqual({
      pk: 'WORKSPACE#0000000000000003#CONVERSATION#0000000000000045',
      sk: 'MSG#2026-11-23T09:00:00.000Z#trk_1',
    });
    // A provider's message id over the sort key's 1,024 bytes (500 characters of 3 bytes) keeps the time order.
    const long = '界'.repeat(500);
    expect(keys.conversationMessageKey(3, 45, '2026-11-23T09:00:00.000Z', long).sk).toBe(
      `MSG#2026-11-23T09:00:00.000Z#~sha256:${createHash('sha256').update(long).digest('hex')}`,
    );
  },
  CONVERSATION_MESSAGE_PREFIX: () => expect(keys.CONVERSATION_MESSAGE_PREFIX).toBe('MSG#'),
  conversationKey: () =>
    expect(keys.conversationKey(3, 45)).toEqual({ pk: 'WORKSPACE#0000000000000003#CONVERSATION#0000000000000045', sk: 'SUMMARY' }),
  conversationsByRecency: () =>
    expect(keys.conversationsByRecency(3, '2026-11-23T09:00:00.000Z', 45)).toEqual({
      gsi1pk: 'WORKSPACE#0000000000000003#INBOX',
      gsi1sk: '2026-11-23T09:00:00.000Z#0000000000000045',
    }),
  inboundLinkKey: () => expect(keys.inboundLinkKey('CHAT#acc_1#chat_1')).toEqual({ pk: 'INBOUND_LINK#CHAT#acc_1#chat_1', sk: 'LINK' }),
  suppressionKey: () => {
    expect(keys.suppressionKey(8, 'EMAIL', 'ada@example.com')).toEqual({ pk: 'SUPPRESSION#0000000000000008#EMAIL#ada@example.com', sk: 'SUPPRESSION' });
    expect(keys.suppressionKey(8, 'DOMAIN', 'example.com')).toEqual({ pk: 'SUPPRESSION#0000000000000008#DOMAIN#example.com', sk: 'SUPPRESSION' });
  },
  suppressionIdKey: () =>
    expect(keys.suppressionIdKey(8, 31)).toEqual({ pk: 'SUPPRESSIONID#0000000000000008#0000000000000031', sk: 'SUPPRESSIONID' }),
  suppressionsByWorkspace: () =>
    expect(keys.suppressionsByWorkspace(8, 31)).toEqual({ gsi1pk: 'WORKSPACE#0000000000000008#SUPPRESSIONS', gsi1sk: 'SUPPRESSION#0000000000000031' }),
  requestCounterKey: () =>
    expect(keys.requestCounterKey('unsubscribe', '203.0.113.9', '2026-11-23T09:00:00.000Z')).toEqual({
      pk: 'REQUESTS#unsubscribe#203.0.113.9',
      sk: '2026-11-23T09:00:00.000Z',
    }),
  loginAttemptsKey: () => {
    expect(keys.loginAttemptsKey('ada@example.com', '203.0.113.9')).toEqual({ pk: 'LOGIN_ATTEMPTS#ada@example.com#203.0.113.9', sk: 'ATTEMPTS' });
    expect(keys.loginAttemptsKey('a#b@example.com', '2001:db8::1')).toEqual({ pk: 'LOGIN_ATTEMPTS#a#b@example.com#2001:db8::1', sk: 'ATTEMPTS' });
  },
};

describe('every key builder, exactly', () => {
  it('has an expectation for each export of keys.ts, and none for a name it does not export', async () => {
    const exported = Object.keys(await import('../../../shared/db/keys')).sort();
    expect(exported).toEqual(Object.keys(EXACT).sort());
  });

  it.each(Object.entries(EXACT))('%s', (_name, check) => check());
});

// Key-shaped values built outside keys.ts: the list members' LSI sort keys and filter attributes
// (persisted), and the delivery-log cursor (an encoded sort key that clients hold on to).
describe('list member index keys and the delivery-log cursor, exactly', () => {
  it('maps each list type’s sort fields to fixed LSIs and names filter attributes f_<key>', () => {
    expect(SORT_INDEX).toEqual({
      PEOPLE: {
        first_name: { index: 'lsi1', attribute: 'lsi1sk' },
        last_name: { index: 'lsi2', attribute: 'lsi2sk' },
        job_title: { index: 'lsi3', attribute: 'lsi3sk' },
        location: { index: 'lsi4', attribute: 'lsi4sk' },
        created_at: { index: 'lsi5', attribute: 'lsi5sk' },
      },
      COMPANY: {
        name: { index: 'lsi1', attribute: 'lsi1sk' },
        industry: { index: 'lsi2', attribute: 'lsi2sk' },
        revenue: { index: 'lsi3', attribute: 'lsi3sk' },
        location: { index: 'lsi4', attribute: 'lsi4sk' },
        amount_of_employees: { index: 'lsi5', attribute: 'lsi5sk' },
      },
    });
  });

  it('builds a member item: keys, lead version, the view as JSON, sort value + \\u0001 + padded lead id per LSI', () => {
    const projection = {
      sort: { first_name: 'ada', last_name: 'lovelace', job_title: '\uffff', created_at: '2026-11-21T12:00:00.000Z' },
      filter: { job_title: 'cto', location: 'london' },
    };
    expect(memberItem('PEOPLE', 123, 45, 3, { projection, view: { id: 45, first_name: 'Ada' } })).toEqual({
      pk: 'LEADLIST#0000000000000123#MEMBERS',
      sk: 'LEAD#0000000000000045',
      entityType: 'ListMember',
      leadId: 45,
      version: 3,
      view: '{"id":45,"first_name":"Ada"}',
      lsi1sk: 'ada\u00010000000000000045',
      lsi2sk: 'lovelace\u00010000000000000045',
      lsi3sk: '\uffff\u00010000000000000045',
      lsi4sk: '\u00010000000000000045',
      lsi5sk: '2026-11-21T12:00:00.000Z\u00010000000000000045',
    });
    const company = { sort: { name: 'acme', industry: 'software', revenue: '0000010000000', location: 'berlin', amount_of_employees: '0000051' }, filter: {} };
    expect(memberItem('COMPANY', 124, 66, 1, { projection: company, view: { id: 66 } })).toEqual({
      pk: 'LEADLIST#0000000000000124#MEMBERS',
      sk: 'LEAD#0000000000000066',
      entityType: 'ListMember',
      leadId: 66,
      version: 1,
      view: '{"id":66}',
      lsi1sk: 'acme\u00010000000000000066',
      lsi2sk: 'software\u00010000000000000066',
      lsi3sk: '0000010000000\u00010000000000000066',
      lsi4sk: 'berlin\u00010000000000000066',
      lsi5sk: '0000051\u00010000000000000066',
    });
  });

  it('encodes a delivery-log cursor as the base64url of the sort key and accepts only such cursors back', () => {
    const sk = 'WEBHOOK_ATTEMPT#2026-11-21T12:00:00.000Z#evt_1#02';
    expect(encodeAttemptCursor(sk)).toBe('V0VCSE9PS19BVFRFTVBUIzIwMjYtMTEtMjFUMTI6MDA6MDAuMDAwWiNldnRfMSMwMg');
    expect(decodeAttemptCursor('V0VCSE9PS19BVFRFTVBUIzIwMjYtMTEtMjFUMTI6MDA6MDAuMDAwWiNldnRfMSMwMg')).toBe(sk);
    expect(decodeAttemptCursor(encodeAttemptCursor('WEBHOOK#x'))).toBeUndefined();
    expect(decodeAttemptCursor('not a cursor!')).toBeUndefined();
  });
});

describe('keys ending in outside text (key-text.ts)', () => {
  it('keep the text while the key fits DynamoDB\'s limit, to the last byte; past it, end in its SHA-256', () => {
    expect([PARTITION_KEY_MAX_BYTES, SORT_KEY_MAX_BYTES]).toEqual([2048, 1024]);
    expect(keyEndingIn('P#', 'é'.repeat(9), 20)).toBe(`P#${'é'.repeat(9)}`);
    expect(keyEndingIn('P#', 'é'.repeat(10), 21)).toBe(`P#~sha256:${createHash('sha256').update('é'.repeat(10)).digest('hex')}`);
  });
});
