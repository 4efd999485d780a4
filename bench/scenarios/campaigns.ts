import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCampaignRepository } from '../../shared/db/campaign-repository';
import { DynamoIdAllocator } from '../../shared/db/id-allocator';
import { campaignProspectItem } from '../../shared/db/campaign-prospects';
import type { Campaign } from '../../shared/domain/campaigns/campaign';
import type { CampaignProspect } from '../../shared/domain/campaigns/campaign-prospect';
import { benchCampaignDetail } from '../campaign-detail';
import { type BenchContext, type BenchScenario, fmt, measured, median, table } from '../lib';

const LEADS = 10_000;
const ROWS_PER_IMPORT = 1_000;
/** add-to-campaign's maximum per request. */
const PER_REQUEST = 1_000;
/** Moves per transaction, as the lead write path packs them: 2 actions each and the campaign's counter in 100. */
const MOVES_PER_TRANSACTION = 49;
/** Campaign ids of the floor's scratch items (far from any allocated id). */
const FLOOR_CAMPAIGN = 900_000_000;

const TITLES = ['CTO', 'VP Sales', 'Head of Marketing', 'Account Manager', 'Software Engineer', 'Product Manager', 'CFO', 'Sales Manager'];
const CITIES = ['Amsterdam', 'Berlin', 'Paris', 'London', 'Madrid', 'Milan', 'Zürich', 'Vienna', 'Stockholm', 'Dublin'];

/** A deterministic lead like the lead-lists scenario's: 500 distinct companies. */
function lead(n: number) {
  const company = n % 500;
  return {
    first_name: `First${n % 97}`,
    last_name: `Last ${n}`,
    network_profile_url: `https://www.linkedin.com/in/campaign-bench-${n}`,
    email: n % 3 === 0 ? `cbench${n}@company${company}.example` : undefined,
    job_title: TITLES[(n * 3) % TITLES.length],
    location: CITIES[(n * 11) % CITIES.length],
    company_name: `Campaign Company ${company}`,
    company_website_url: `https://campaign-company${company}.example`,
  };
}

type Row = (string | number)[];

/**
 * Moving prospects into a campaign: a 10,000-prospect list (imported first, not measured), then
 * add-to-campaign with `amount: 0` ten times (1,000 a request, `has_more` until the last), into an
 * ACTIVE campaign with activation (each prospect scheduled), then 1,000 of them moved on into a
 * second campaign (out of the first) and the prospects page. Capacity is what DynamoDB Local
 * reports for every call of the request (authorizer included), and WCU computed from item sizes.
 */
export const scenario: BenchScenario = {
  name: 'campaigns',
  // No SQS poller or schedule timer: the requests' own cost, as in AWS, where the engine's
  // functions do not share DynamoDB's capacity with them. Here they would share 2 cores and
  // DynamoDB Local with the requests (the moved prospects' first actions are due at once), and
  // the meter, which counts every call of the process, would add their calls to the requests'
  // figures. What the engine costs per prospect is the engine scenario's.
  stack: () => ({ background: false }),
  async run(context) {
    const { call, user, stack } = context;
    const apiKey = user.apiKey;
    // Measured first, while no campaign has prospects: the meter counts every call of the process,
    // and once prospects are moved in, the engine works on them (their first actions are due at
    // once) in the background; a later read's window would count part of that work.
    const detail = await benchCampaignDetail(context);
    const created = await call('POST', '/public/lead-lists', { apiKey, body: { name: 'Campaign bench 10k' } });
    const listId: number = created.body.lead_list.id;
    const setupStarted = performance.now();
    for (let start = 0; start < LEADS; start += ROWS_PER_IMPORT) {
      const leads = Array.from({ length: ROWS_PER_IMPORT }, (_, i) => lead(start + i));
      const response = await call('POST', `/public/lead-lists/${listId}/import`, { apiKey, body: { leads } });
      if (response.status !== 200 || response.body.created !== ROWS_PER_IMPORT) throw new Error(`import failed: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
    }
    const setupMs = performance.now() - setupStarted;

    const campaigns = new DynamoCampaignRepository(stack.db, stack.tableName);
    const ids = new DynamoIdAllocator(stack.db, stack.tableName);
    const newCampaign = async (name: string): Promise<Campaign> => {
      const at = stack.clock.now().toISOString();
      const campaign = await campaigns.create({
        id: await ids.next(),
        workspaceId: user.workspaceId,
        name,
        status: 'DRAFT',
        timezone: 'Europe/Amsterdam',
        language: 'en',
        emailMaxMessages: 40,
        networkMaxMessages: 100,
        networkMaxConnections: 50,
        sendingWindow: {},
        accountIds: [],
        stopOnCompanyReply: false,
        prospectCount: 0,
        flow: { root: null, nodes: {}, redirects: {} },
        flowVersion: 0,
        createdAt: at,
        updatedAt: at,
      });
      await campaigns.setStatus(campaign, 'DRAFT', 'ACTIVE', at);
      return campaign;
    };
    const first = await newCampaign('Bench campaign');
    const second = await newCampaign('Bench campaign 2');

    const rows: Row[] = [];
    const times: number[] = [];
    const totals = { ms: 0, rcu: 0, wcu: 0, wcuComputed: 0, calls: 0, moved: 0 };
    for (let request = 1; ; request += 1) {
      const run = await measured(context.meter, () =>
        call('POST', `/public/lead-lists/${listId}/add-to-campaign`, {
          apiKey,
          body: { campaign: first.id, amount: 0, prospects_per_company: 1000, activate: true },
        }),
      );
      const { status, body } = run.result;
      if (status !== 200) throw new Error(`add-to-campaign failed: ${status} ${JSON.stringify(body).slice(0, 300)}`);
      times.push(run.ms);
      totals.ms += run.ms;
      totals.rcu += run.rcu;
      totals.wcu += run.wcu;
      totals.wcuComputed += run.wcuComputed;
      totals.calls += run.calls;
      totals.moved += body.count;
      rows.push([`add-to-campaign #${request}`, `amount 0, activate`, fmt(run.ms, 0), fmt(run.rcu, 1), fmt(run.wcu, 1), fmt(run.wcuComputed, 1), run.calls, `${body.count} moved, has_more ${body.has_more}`]);
      if (!body.has_more) break;
      if (request > 20) throw new Error('add-to-campaign never ended');
    }
    if (totals.moved !== LEADS) throw new Error(`moved ${totals.moved}, expected ${LEADS}`);
    rows.push([
      `add-to-campaign ${LEADS.toLocaleString('en')} (total)`,
      `${times.length} requests`,
      fmt(totals.ms, 0),
      fmt(totals.rcu, 1),
      fmt(totals.wcu, 1),
      fmt(totals.wcuComputed, 1),
      totals.calls,
      `median ${fmt(median(times), 0)} ms/request; per prospect ${fmt(totals.rcu / LEADS, 2)} RCU, ${fmt(totals.wcu / LEADS, 2)} WCU reported, ${fmt(totals.wcuComputed / LEADS, 2)} WCU computed`,
    ]);

    const moveOn = await measured(context.meter, () =>
      call('POST', `/public/lead-lists/${listId}/add-to-campaign`, {
        apiKey,
        body: { campaign: second.id, amount: PER_REQUEST, allow_duplicates: true, prospects_per_company: 1000, activate: true },
      }),
    );
    rows.push([
      `move ${PER_REQUEST.toLocaleString('en')} on`,
      'into a second campaign, out of the first',
      fmt(moveOn.ms, 0),
      fmt(moveOn.rcu, 1),
      fmt(moveOn.wcu, 1),
      fmt(moveOn.wcuComputed, 1),
      moveOn.calls,
      `${moveOn.result.body.count} moved`,
    ]);
    const page = await measured(context.meter, () => call('GET', `/public/campaigns/${first.id}/prospects?status=IN_REVIEW`, { apiKey }));
    rows.push(['campaign prospects, a page', 'status IN_REVIEW, 100 a page', fmt(page.ms, 0), fmt(page.rcu, 1), fmt(page.wcu, 1), fmt(page.wcuComputed, 1), page.calls, `${page.result.body.prospects.length} shown`]);
    const counts = [await campaigns.get(user.workspaceId, first.id), await campaigns.get(user.workspaceId, second.id)].map((c) => c?.prospectCount);
    const floors: number[] = [];
    for (let run = 0; run < 3; run += 1) floors.push(await writeFloor(context.stack, run));
    rows.push([
      'floor: the item writes of a move of 1,000',
      'scratch items, same sizes and keys, no reads',
      fmt(median(floors), 0),
      '',
      '',
      '',
      '',
      `median of 3 (${floors.map((ms) => fmt(ms, 0)).join(', ')} ms); a request takes ${fmt(median(times) / median(floors), 2)}× it`,
    ]);
    if (counts[0] !== LEADS - PER_REQUEST || counts[1] !== PER_REQUEST) throw new Error(`counts ${counts.join(', ')}`);

    return {
      title: 'Campaigns: add-to-campaign of 10,000 prospects (10 × 1,000)',
      markdown: [
        `Setup (not measured): import of ${LEADS.toLocaleString('en')} prospects (500 companies) into one list, ${fmt(setupMs / 1000, 1)} s; two ACTIVE campaigns with empty flows. ` +
          'The stack runs no SQS poller or schedule timer: the figures are the requests\u2019 own, without the engine working on the moved prospects meanwhile (see the engine scenario).',
        '',
        table(['operation', 'detail', 'ms', 'RCU', 'WCU (reported)', 'WCU (computed)', 'DynamoDB calls', 'result'], rows),
        '',
        `Target: ${LEADS.toLocaleString('en')} prospects moved in under 30 s on DynamoDB Local. Campaign counts after: ${counts.join(' and ')}.`,
        '',
        'The floor row writes, on scratch items of the same sizes and keys, exactly the item writes one request of 1,000 makes ' +
          '(transactions of 49 prospect replacements, each conditional on its version, with 49 new campaign prospect items carrying ' +
          'their first actions\u2019 due-time keys (due now: `activate` on an ACTIVE campaign) and a counter update, one after another; 1,000 member views ' +
          'with their five LSI keys in batches of 25 as each transaction ' +
          'commits), without any read, digest, journal or HTTP: what DynamoDB Local on this machine needs for them at this moment.',
        '',
        'A moved prospect is one transaction share (the prospect put, conditional on its version; its campaign prospect item put, ' +
          'and deleted in the campaign it leaves; the campaigns\u2019 `ADD prospectCount` once per transaction), its member view put ' +
          'in each list it is in (batch), and its share of the digest chunks, journal and counters. "WCU (computed)" counts a ' +
          'transaction by its actions (2 WCU per KB per copy: table and each index the item has keys for; an Update or ' +
          'ConditionCheck 1 KB) as the lead-lists scenario does. See docs/data-model.md.',
        '',
        '### Campaign detail',
        '',
        detail.markdown,
      ].join('\n'),
    };
  },
};

/**
 * The item writes of one add-to-campaign of 1,000 on scratch items (own partitions): 1,000
 * prospect-sized items replaced in transactions of 49 (version condition) with 49 new campaign
 * prospect items (carrying their first actions' due-time keys) and a counter `ADD`, one transaction after another, and 1,000 member-view-sized
 * items with five LSI keys written in batches as each transaction commits. Milliseconds.
 */
async function writeFloor(stack: BenchContext['stack'], run: number): Promise<number> {
  const { db, tableName } = stack;
  const at = '2026-11-23T10:00:00.000Z';
  const pad = (n: number) => String(n).padStart(16, '0');
  const prospect = (i: number, version: number) => ({
    pk: `BENCHFLOOR#P#${pad(i)}`,
    sk: 'PROSPECT',
    gsi1pk: 'BENCHFLOOR#PROSPECTS',
    gsi1sk: `PROSPECT#${pad(i)}`,
    entityType: 'BenchFloor',
    ...lead(i),
    id: i,
    workspaceId: 1,
    companyId: 1_000_000 + (i % 500),
    status: version > 1 ? 'IN_REVIEW' : 'NEW',
    listIds: new Set([1]),
    version,
    createdAt: at,
    updatedAt: at,
  });
  // The campaign prospect, carrying its first action, as a move with `activate` writes it (its own
  // item builder, in a scratch campaign per run).
  const enter = (i: number): CampaignProspect => ({
    campaignId: FLOOR_CAMPAIGN + run,
    prospectId: i,
    workspaceId: 1,
    status: 'IN_REVIEW',
    nodeId: null,
    schedule: 'SCHEDULED',
    nextActionAt: at,
    lastError: null,
    companyId: 1_000_000 + (i % 500),
    addedAt: at,
    updatedAt: at,
  });
  const view = (i: number) => ({
    pk: `BENCHFLOOR#L${run}#MEMBERS`,
    sk: `LEAD#${pad(i)}`,
    entityType: 'BenchFloor',
    leadId: i,
    version: 2,
    view: JSON.stringify({ ...lead(i), id: i, status: 'IN_REVIEW', campaign_id: run, company: { id: i, name: `Campaign Company ${i % 500}` }, created_at: at, updated_at: at }),
    ...Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`lsi${n}sk`, `value ${n} ${i}\u0001${pad(i)}`])),
  });
  const ids = Array.from({ length: PER_REQUEST }, (_, i) => run * PER_REQUEST + i);
  for (let i = 0; i < ids.length; i += 25) {
    await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: ids.slice(i, i + 25).map((id) => ({ PutRequest: { Item: prospect(id, 1) } })) } }));
  }
  await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: [{ PutRequest: { Item: { pk: `BENCHFLOOR#COUNTER${run}`, sk: 'C', n: 0 } } }] } }));
  const started = performance.now();
  const views: Promise<unknown>[] = [];
  for (let i = 0; i < ids.length; i += MOVES_PER_TRANSACTION) {
    const group = ids.slice(i, i + MOVES_PER_TRANSACTION);
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...group.flatMap((id) => [
            { Put: { TableName: tableName, Item: prospect(id, 2), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': 1 } } },
            { Put: { TableName: tableName, Item: campaignProspectItem(enter(id)), ConditionExpression: 'attribute_not_exists(pk)' } },
          ]),
          { Update: { TableName: tableName, Key: { pk: `BENCHFLOOR#COUNTER${run}`, sk: 'C' }, UpdateExpression: 'ADD n :n', ExpressionAttributeValues: { ':n': group.length } } },
        ],
      }),
    );
    for (let k = 0; k < group.length; k += 25) {
      views.push(db.send(new BatchWriteCommand({ RequestItems: { [tableName]: group.slice(k, k + 25).map((id) => ({ PutRequest: { Item: view(id) } })) } })));
    }
  }
  await Promise.all(views);
  return performance.now() - started;
}
