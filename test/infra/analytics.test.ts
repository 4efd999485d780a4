import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ROUTES } from '../../shared/http/route-table';
import { type CfnResource, dynamoAccess, logicalId, policyStatements, resourcesOfType, sharedStack } from './template-helpers';

/** The analytics function: reads of the aggregates only (docs/analytics.md). */
describe('OutreachStack: analytics (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  it('gives the function the table only, and lets it read the table and its indexes, never write', () => {
    expect(resources[logicalId(stack, stack.functions.analytics)]?.Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: { Ref: logicalId(stack, stack.table.table) },
      RUNTIME: 'aws',
    });
    const role = logicalId(stack, stack.functions.analytics.role as never);
    // Item reads only (no Scan), on the table and each index by name.
    expect(dynamoAccess(template, role, logicalId(stack, stack.table.table))).toEqual({
      table: ['BatchGetItem', 'Query'],
      indexes: ['gsi1', 'gsi2', 'lsi1', 'lsi2', 'lsi3', 'lsi4', 'lsi5'],
      conditional: [],
      elsewhere: [],
    });
    const others = policyStatements(template, role).flatMap((statement) => [statement.Action].flat());
    expect(others.filter((action) => /^(sqs|secretsmanager|kms):/.test(String(action)))).toEqual([]);
  });

  it('serves its three routes through its own function, behind the authorizer and the usage plan: two with an API key, the dashboard with a key or a session', () => {
    expect(ROUTES.filter((route) => route.group === 'analytics').map((route) => `${route.method} ${route.path} ${route.auth}`)).toEqual([
      'GET /api/v1/public/analytics apiKey',
      'GET /api/v1/public/campaigns/{id}/analytics apiKey',
      'GET /api/v1/dashboard/campaign-analytics apiKeyOrSession',
    ]);
    const methods = resourcesOfType(template, 'AWS::ApiGateway::Method')
      .map(([, method]) => method.Properties)
      .filter((method) => JSON.stringify(method.Integration ?? {}).includes(`${stack.stackName}-analytics`));
    expect(methods.map((method) => `${method.HttpMethod} ${method.AuthorizationType} apiKeyRequired=${method.ApiKeyRequired}`).sort()).toEqual([
      // A session is counted by the usage plan too: the authorizer names its usage key.
      'GET CUSTOM apiKeyRequired=true',
      'GET CUSTOM apiKeyRequired=true',
      'GET CUSTOM apiKeyRequired=true',
    ]);
  });
});
