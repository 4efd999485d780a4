import { type BenchContext, type BenchScenario, fmt, measured, table } from '../lib';

const LEADS = 10_000;
/** The documented maximum rows per import request. */
const ROWS_PER_IMPORT = 1_000;
const PAGE_SIZE = 25;
const ADD_IDS = 1_000;

const FIRST = ['Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Lucas', 'Mia', 'Elias', 'Sofia', 'Daan', 'Julia', 'Finn', 'Lotte', 'Sem', 'Anna'];
const LAST = ['de Vries', 'Jansen', 'Bakker', 'Visser', 'Smit', 'Meijer', 'Müller', 'Schmidt', 'Martin', 'García', 'Rossi', 'Nowak'];
const TITLES = ['CTO', 'VP Sales', 'Head of Marketing', 'Account Manager', 'Software Engineer', 'Product Manager', 'CFO', 'Sales Manager'];
const CITIES = ['Amsterdam', 'Berlin', 'Paris', 'London', 'Madrid', 'Milan', 'Zürich', 'Vienna', 'Stockholm', 'Dublin'];
const INDUSTRIES = ['Software', 'Banking', 'Retail', 'Energy', 'Healthcare', 'Logistics'];

/** A deterministic lead: 500 distinct companies, mixed values for every sortable field. */
function lead(n: number) {
  const company = n % 500;
  return {
    first_name: FIRST[n % FIRST.length],
    last_name: `${LAST[(n * 7) % LAST.length]} ${n}`,
    network_profile_url: `https://www.linkedin.com/in/bench-${n}`,
    email: n % 3 === 0 ? `bench${n}@company${company}.example` : undefined,
    job_title: TITLES[(n * 3) % TITLES.length],
    location: CITIES[(n * 11) % CITIES.length],
    company_name: `Company ${company}`,
    company_website_url: `https://company${company}.example`,
    company_industry: INDUSTRIES[company % INDUSTRIES.length],
  };
}

type Row = [string, string, string, string, string, string, string, string];

/**
 * The same operations before this layout (bench/results/2026-11-23T10-19-42.md: members copied
 * whole into five LSIs, a page BatchGetting its leads, one transaction per lead) and the targets
 * of issue 9, shown beside today's figures.
 */
const BEFORE: Record<string, { before: string; target: string }> = {
  'import 10,000 (total)': { before: '38,619 ms; 7,308 WCU reported, ≈ 18–20 WCU/prospect computed', target: '< 30 s, ≤ 12 WCU/prospect' },
  'import 1,000 again': { before: '585 ms; 3,837 RCU (3.8/row)', target: '≤ 1 RCU/row' },
  'list page 1 (id)': { before: '56 RCU', target: '≤ 10 RCU' },
  'list page 1': { before: '56 RCU', target: '≤ 30 RCU' },
  'list page 200': { before: '718–722 RCU', target: '≤ 150 RCU' },
  'list page 1, filtered': { before: '1,381 RCU', target: '≤ 400 RCU' },
  'list page 75, filtered': { before: '1,381 RCU', target: '≤ 400 RCU' },
  'add-leads 1,000 ids': { before: '4,323 ms', target: '< 2 s' },
  'workspace search, next page by cursor': { before: 'whole workspace per request', target: 'O(page)' },
};

async function timed(context: BenchContext, label: string, detail: string, rows: Row[], fn: () => Promise<{ status: number; body: any }>) {
  const run = await measured(context.meter, fn);
  if (run.result.status !== 200) throw new Error(`${label} failed: ${run.result.status} ${JSON.stringify(run.result.body).slice(0, 300)}`);
  rows.push([label, detail, fmt(run.ms, 0), fmt(run.rcu, 1), fmt(run.wcu, 1), fmt(run.wcuComputed, 1), String(run.calls), '']);
  return run;
}

/**
 * Issue 3's benchmark: import 10,000 leads (10 requests of 1,000), list page 1 and a middle page
 * sorted by two fields with and without a filter, and add 1,000 ids to another list. Capacity is
 * what DynamoDB Local reports for every call in the process (authorizer included).
 */
export const scenario: BenchScenario = {
  name: 'lead-lists',
  // No SQS poller or schedule timer: the meter counts every call of the process, and the local
  // timer's runs (the outreach scheduler's shard leases and queries every few seconds) would fall
  // into the requests' windows. Nothing here needs them.
  stack: () => ({ background: false }),
  async run(context) {
    const { call, user } = context;
    const apiKey = user.apiKey;
    const rows: Row[] = [];

    const created = await call('POST', '/public/lead-lists', { apiKey, body: { name: 'Bench 10k' } });
    const listId: number = created.body.lead_list.id;

    const prospectIds: number[] = [];
    let importMs = 0;
    let importRcu = 0;
    let importWcu = 0;
    let importWcuComputed = 0;
    for (let start = 0; start < LEADS; start += ROWS_PER_IMPORT) {
      const leads = Array.from({ length: ROWS_PER_IMPORT }, (_, i) => lead(start + i));
      const run = await measured(context.meter, () => call('POST', `/public/lead-lists/${listId}/import`, { apiKey, body: { leads } }));
      if (run.result.status !== 200 || run.result.body.created !== ROWS_PER_IMPORT) {
        throw new Error(`import failed: ${run.result.status} ${JSON.stringify(run.result.body).slice(0, 300)}`);
      }
      prospectIds.push(...run.result.body.leads.map((l: { id: number }) => l.id));
      importMs += run.ms;
      importRcu += run.rcu;
      importWcu += run.wcu;
      importWcuComputed += run.wcuComputed;
      if (start === 0) {
        rows.push(['import 1,000 (first request)', 'new companies and prospects', fmt(run.ms, 0), fmt(run.rcu, 1), fmt(run.wcu, 1), fmt(run.wcuComputed, 1), String(run.calls), '']);
      }
    }
    rows.push([
      `import ${LEADS.toLocaleString('en')} (total)`,
      `${LEADS / ROWS_PER_IMPORT} requests`,
      fmt(importMs, 0),
      fmt(importRcu, 1),
      fmt(importWcu, 1),
      fmt(importWcuComputed, 1),
      '',
      `${fmt(importWcuComputed / LEADS, 2)} WCU per prospect (computed)`,
    ]);

    const reimport = await timed(context, 'import 1,000 again', 'all matched, unchanged', rows, () =>
      call('POST', `/public/lead-lists/${listId}/import`, { apiKey, body: { leads: Array.from({ length: ROWS_PER_IMPORT }, (_, i) => lead(i)) } }),
    );
    if (reimport.result.body.updated !== ROWS_PER_IMPORT) throw new Error('re-import did not match every lead');
    (rows.at(-1) as Row)[7] = `${fmt(reimport.rcu / ROWS_PER_IMPORT, 3)} RCU per row`;

    for (const direction of ['asc', 'desc']) {
      const query = `sort_direction=${direction}&page=1&page_size=${PAGE_SIZE}`;
      const run = await timed(context, 'list page 1 (id)', query, rows, () => call('GET', `/public/lead-lists/${listId}/leads?${query}`, { apiKey }));
      (rows.at(-1) as Row)[7] = `${run.result.body.total_count} matching, ${run.result.body.prospects.length} returned`;
    }

    for (const sort of ['first_name', 'location']) {
      for (const filter of ['', '&job_title=manager']) {
        let middle = 1;
        for (const which of ['first', 'middle']) {
          const page = which === 'first' ? 1 : middle;
          const query = `sort_field=${sort}&sort_direction=${which === 'first' ? 'asc' : 'desc'}&page=${page}&page_size=${PAGE_SIZE}${filter}`;
          const label = `list page ${page}${filter ? ', filtered' : ''}`;
          const run = await timed(context, label, query, rows, () => call('GET', `/public/lead-lists/${listId}/leads?${query}`, { apiKey }));
          const total: number = run.result.body.total_count;
          (rows.at(-1) as Row)[7] = `${total} matching, ${run.result.body.prospects.length} returned`;
          middle = Math.max(1, Math.round(total / PAGE_SIZE / 2));
        }
      }
    }

    const second = await call('POST', '/public/lead-lists', { apiKey, body: { name: 'Bench add 1k' } });
    const ids = prospectIds.slice(0, ADD_IDS);
    const added = await timed(context, `add-leads ${ADD_IDS.toLocaleString('en')} ids`, 'one request', rows, () =>
      call('POST', `/public/lead-lists/${second.body.lead_list.id}/add-leads`, { apiKey, body: { prospect_ids: ids } }),
    );
    (rows.at(-1) as Row)[7] = `${added.result.body.added} added, total ${added.result.body.total_prospects}`;
    await timed(context, `add-leads ${ADD_IDS.toLocaleString('en')} ids again`, 'all already in the list', rows, () =>
      call('POST', `/public/lead-lists/${second.body.lead_list.id}/add-leads`, { apiKey, body: { prospect_ids: ids } }),
    );
    await timed(context, 'delete-leads 100 ids', 'archive: leave both lists', rows, () =>
      call('DELETE', `/public/lead-lists/${listId}/delete-leads`, { apiKey, body: { prospect_ids: ids.slice(0, 100) } }),
    );
    await timed(context, 'directory search, 100 results', 'saves 100 prospects', rows, () =>
      call('POST', '/public/prospects/search', { apiKey, body: { filters: { seniority: 'Manager' }, page_size: 100 } }),
    );
    const firstPage = await timed(context, 'workspace search, page 1', `source WORKSPACE, page_size ${PAGE_SIZE}`, rows, () =>
      call('POST', '/public/prospects/search', { apiKey, body: { source: 'WORKSPACE', page_size: PAGE_SIZE } }),
    );
    (rows.at(-1) as Row)[7] = `total_count ${firstPage.result.body.total_count}`;
    const cursor: string = firstPage.result.body.next_cursor;
    await timed(context, 'workspace search, next page by cursor', `source WORKSPACE, page_size ${PAGE_SIZE}`, rows, () =>
      call('POST', '/public/prospects/search', { apiKey, body: { source: 'WORKSPACE', page_size: PAGE_SIZE, cursor } }),
    );

    return {
      title: 'Lead lists: import 10,000, list, add 1,000',
      markdown: [
        table(['operation', 'detail', 'ms', 'RCU', 'WCU (reported)', 'WCU (computed)', 'DynamoDB calls', 'result'], rows),
        '',
        'Before this layout, and the targets (issue 9):',
        '',
        table(
          ['operation', 'before', 'target'],
          Object.entries(BEFORE).map(([operation, { before, target }]) => [operation, before, target]),
        ),
        '',
        'RCU is what DynamoDB Local reports for every call of the request, authorization included. DynamoDB Local reports a ' +
          'TransactWriteItems call as if it wrote one item, so "WCU (computed)" replaces its figure for every transaction by ' +
          'the cost of its actions (2 WCU per KB per copy: the table and each index the item has keys for; an Update or ' +
          'ConditionCheck counts 1 KB) and keeps the reported figure of every other call (batch writes, which it reports ' +
          'with their index copies). A new prospect costs its item (table and gsi1, gsi2), its member view (table and five ' +
          'LSIs), its identity guards (claimed in transactions) and its share of the digest chunks, journal and counters. ' +
          'See docs/data-model.md for the layout and what each change costs.',
      ].join('\n'),
    };
  },
};
