import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { LOCAL_INDEXES } from '../../shared/db/table-schema';
import { ROUTES } from '../../shared/http/route-table';
import { type CfnResource, dynamoAccess, logicalId, policyStatements, resourcesOf, resourcesOfType, testApp } from './template-helpers';

/** The lead-list and prospect-search functions in the stack. */
describe('OutreachStack: lead lists and prospect search (no bundling)', () => {
  const app = testApp({ bundle: false, context: { directoryBaseUrl: 'https://directory.example.com/api', searchQuotaPerMonth: 250 } });
  const config = loadConfig(app.node);
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    stack = new OutreachStack(app, 'LeadListsProbe', { config });
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
  });

  const fnOf = (group: 'leadLists' | 'prospects') => resources[logicalId(stack, stack.functions[group])];
  const envOf = (group: 'leadLists' | 'prospects'): Record<string, unknown> => fnOf(group)?.Properties.Environment.Variables ?? {};

  it('gives both functions the table, their limits and timeouts that fit the gateway’s 29 s', () => {
    const tableRef = { Ref: logicalId(stack, stack.table.table) };
    // Exactly their declared settings: the lead-lists function publishes only to the
    // campaign-scheduling queue (a completion check that failed after leads left a campaign).
    expect(envOf('leadLists')).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: tableRef,
      RUNTIME: 'aws',
      MAX_LEADS_PER_LIST: '100000',
      CAMPAIGN_SCHEDULING_QUEUE_URL: { Ref: logicalId(stack, stack.queueConsumers['campaign-scheduling']?.queue as never) },
    });
    expect(envOf('prospects')).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: tableRef,
      RUNTIME: 'aws',
      DIRECTORY_BASE_URL: 'https://directory.example.com/api',
      DIRECTORY_API_KEY_ARN: { Ref: expect.stringMatching(/^DirectoryApiKey[0-9A-F]{8}$/) },
      SEARCH_QUOTA_PER_MONTH: '250',
      MAX_LEADS_PER_LIST: '100000',
    });
    expect(fnOf('leadLists')?.Properties.Timeout).toBe(28);
    expect(fnOf('prospects')?.Properties.Timeout).toBe(20);
  });

  it('gives only the search function the directory settings, its key from Secrets Manager', () => {
    const env = envOf('prospects');
    expect(env.DIRECTORY_BASE_URL).toBe('https://directory.example.com/api');
    expect(env.SEARCH_QUOTA_PER_MONTH).toBe('250');
    const [secretId] =
      resourcesOfType(template, 'AWS::SecretsManager::Secret').find(([, secret]) =>
        String(secret.Properties.Description).includes('DIRECTORY_API_KEY'),
      ) ?? [];
    expect(resources[secretId as string]?.Properties).toEqual({
      Description: 'API key of the B2B directory behind prospect search; placeholder: put the real value (live within 5 minutes, no deploy) (DIRECTORY_API_KEY)',
      GenerateSecretString: { ExcludePunctuation: true, PasswordLength: 32 },
    });
    // Its ARN, read at runtime with GetSecretValue only (shared/config/secrets.ts).
    expect(env.DIRECTORY_API_KEY_ARN).toEqual({ Ref: secretId });
    const reads = policyStatements(template, logicalId(stack, stack.functions.prospects.role as never)).filter((statement) =>
      resourcesOf(statement).includes(`\${${secretId}}`),
    );
    expect(reads.flatMap((statement) => [statement.Action].flat())).toEqual(['secretsmanager:GetSecretValue']);
    for (const name of ['DIRECTORY_BASE_URL', 'DIRECTORY_API_KEY_ARN', 'SEARCH_QUOTA_PER_MONTH']) {
      expect(envOf('leadLists')[name], name).toBeUndefined();
    }
  });

  it('lets both read and write the table and query its indexes (the LSIs sort list pages)', () => {
    for (const group of ['leadLists', 'prospects'] as const) {
      // They write leads: every item action but Scan; Query on each index by name.
      expect(dynamoAccess(template, logicalId(stack, stack.functions[group].role as never), logicalId(stack, stack.table.table)), group).toEqual({
        table: ['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'],
        indexes: ['gsi1', 'gsi2', 'lsi1', 'lsi2', 'lsi3', 'lsi4', 'lsi5'],
        conditional: [],
        elsewhere: [],
      });
    }
  });

  it('creates the table with the five list-sorting LSIs', () => {
    const [, table] = resourcesOfType(template, 'AWS::DynamoDB::Table')[0] ?? [];
    const indexes = (table?.Properties.LocalSecondaryIndexes ?? []) as { IndexName: string; KeySchema: { AttributeName: string }[] }[];
    expect(indexes.map((index) => [index.IndexName, index.KeySchema[1]?.AttributeName])).toEqual(
      LOCAL_INDEXES.map((index) => [index.name, index.sortKey]),
    );
    expect(LOCAL_INDEXES).toEqual([1, 2, 3, 4, 5].map((n) => ({ name: `lsi${n}`, sortKey: `lsi${n}sk` })));
  });

  it('keeps the local indexes of a table created with ALL when the context says so, and projects keys only otherwise', () => {
    const projections = (template: Template) => {
      const [, table] = resourcesOfType(template, 'AWS::DynamoDB::Table')[0] ?? [];
      return ((table?.Properties.LocalSecondaryIndexes ?? []) as { Projection: { ProjectionType: string } }[]).map((index) => index.Projection.ProjectionType);
    };
    const old = testApp({ bundle: false, context: { localIndexProjection: 'ALL' } });
    const oldStack = new OutreachStack(old, 'OldTableProbe', { config: loadConfig(old.node) });
    expect(projections(Template.fromStack(oldStack))).toEqual(['ALL', 'ALL', 'ALL', 'ALL', 'ALL']);
    expect(projections(template)).toEqual(['KEYS_ONLY', 'KEYS_ONLY', 'KEYS_ONLY', 'KEYS_ONLY', 'KEYS_ONLY']);
  });

  it('serves every lead-list and search route with an API key only, through its own function', () => {
    const mine = ROUTES.filter((route) => route.group === 'leadLists' || route.group === 'prospects');
    expect(mine.map((route) => `${route.method} ${route.path}`)).toEqual([
      'GET /api/v1/public/lead-lists',
      'POST /api/v1/public/lead-lists',
      'GET /api/v1/public/lead-lists/{id}/leads',
      'POST /api/v1/public/lead-lists/{id}/add-leads',
      'DELETE /api/v1/public/lead-lists/{id}/delete-leads',
      'POST /api/v1/public/lead-lists/{id}/import',
      'POST /api/v1/public/prospects/search',
      'GET /api/v1/public/prospects/{prospect_id}',
      'PATCH /api/v1/public/prospects/{prospect_id}',
    ]);
    for (const route of mine) expect(route.auth, route.path).toBe('apiKey');
    const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').map(([, method]) => method.Properties);
    const integrationsOf = (group: 'leadLists' | 'prospects') =>
      methods.filter((method) => JSON.stringify(method.Integration ?? {}).includes(`${stack.stackName}-${group === 'leadLists' ? 'lead-lists' : 'prospects'}`));
    const served = (group: 'leadLists' | 'prospects') =>
      integrationsOf(group).map((method) => `${method.HttpMethod} ${method.AuthorizationType} apiKeyRequired=${method.ApiKeyRequired}`).sort();
    expect(served('leadLists')).toEqual([
      'DELETE CUSTOM apiKeyRequired=true',
      'GET CUSTOM apiKeyRequired=true',
      'GET CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
    ]);
    expect(served('prospects')).toEqual(['GET CUSTOM apiKeyRequired=true', 'PATCH CUSTOM apiKeyRequired=true', 'POST CUSTOM apiKeyRequired=true']);
    expect(integrationsOf('leadLists').map((method) => method.HttpMethod).sort()).toEqual(['DELETE', 'GET', 'GET', 'POST', 'POST', 'POST']);
  });
});
