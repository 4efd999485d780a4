import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ROUTES } from '../../shared/http/route-table';
import { type CfnResource, dynamoAccess, logicalId, policyStatements, resourcesOf, resourcesOfType, sharedStack } from './template-helpers';

/** The function that moves prospects into and out of campaigns. */
describe('OutreachStack: campaign prospects (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  const fn = () => resources[logicalId(stack, stack.functions.campaignProspects)];

  it('gives the function the table, the list limit and the campaign-scheduling queue only, and a timeout within the gateway’s 29 s', () => {
    expect(fn()?.Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: { Ref: logicalId(stack, stack.table.table) },
      RUNTIME: 'aws',
      MAX_LEADS_PER_LIST: '100000',
      CAMPAIGN_SCHEDULING_QUEUE_URL: { Ref: logicalId(stack, stack.queueConsumers['campaign-scheduling']?.queue as never) },
    });
    expect(fn()?.Properties.Timeout).toBe(28);
  });

  it('lets it read and write the table and query its indexes (lsi1 pages by status), nothing else of the data', () => {
    const role = logicalId(stack, stack.functions.campaignProspects.role as never);
    // It writes leads (imports): every item action but Scan; Query on each index by name.
    expect(dynamoAccess(template, role, logicalId(stack, stack.table.table))).toEqual({
      table: ['BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'],
      indexes: ['gsi1', 'gsi2', 'lsi1', 'lsi2', 'lsi3', 'lsi4', 'lsi5'],
      conditional: [],
      elsewhere: [],
    });
    // One queue (a move that makes a COMPLETED campaign ACTIVE again schedules its waiting
    // prospects through it), no secret: every other statement is the function's own logging.
    const queueArn = `\${${logicalId(stack, stack.queueConsumers['campaign-scheduling']?.queue as never)}.Arn}`;
    const queueStatements = policyStatements(template, role).filter((statement) => [statement.Action].flat().some((action) => /^(sqs|secretsmanager|kms):/.test(String(action))));
    expect(queueStatements.map((statement) => [[statement.Action].flat().sort(), resourcesOf(statement)])).toEqual([
      [['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], [queueArn]],
    ]);
  });

  it('serves its four routes with an API key only, through its own function', () => {
    const mine = ROUTES.filter((route) => route.group === 'campaignProspects');
    expect(mine.map((route) => `${route.method} ${route.path} ${route.auth}`)).toEqual([
      'POST /api/v1/public/lead-lists/{id}/add-to-campaign apiKey',
      'POST /api/v1/public/campaigns/{id}/import apiKey',
      'GET /api/v1/public/campaigns/{id}/prospects apiKey',
      'POST /api/v1/public/campaigns/{id}/remove-prospects apiKey',
    ]);
    const methods = resourcesOfType(template, 'AWS::ApiGateway::Method')
      .map(([, method]) => method.Properties)
      .filter((method) => JSON.stringify(method.Integration ?? {}).includes(`${stack.stackName}-campaign-prospects`));
    expect(methods.map((method) => `${method.HttpMethod} ${method.AuthorizationType} apiKeyRequired=${method.ApiKeyRequired}`).sort()).toEqual([
      'GET CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
    ]);
  });
});
