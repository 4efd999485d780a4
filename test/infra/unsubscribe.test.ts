import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ROUTES } from '../../shared/http/route-table';
import { OUTREACH } from '../../shared/runtime/catalog';
import { type CfnResource, actionsOf, flatten, logicalId, policyStatements, resourcesOfType, sharedStack } from './template-helpers';

/** The unsubscribe link and the suppression list in the stack. */
describe('OutreachStack: unsubscribes and suppression (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  const methodsOf = (functionName: string) =>
    resourcesOfType(template, 'AWS::ApiGateway::Method')
      .map(([, method]) => method.Properties)
      .filter((method) => flatten(method.Integration?.Uri).includes(`function:${stack.stackName}-${functionName}/`));
  const envOf = (construct: { node: { defaultChild?: unknown } }): Record<string, unknown> =>
    resources[logicalId(stack, construct)]?.Properties.Environment.Variables ?? {};
  const unsubscribeSecretId = () => {
    const found = resourcesOfType(template, 'AWS::SecretsManager::Secret').find(([, secret]) => String(secret.Properties.Description).includes('UNSUBSCRIBE_SECRET'));
    if (!found) throw new Error('no unsubscribe secret');
    return found[0];
  };

  it('serves the unsubscribe link publicly: no authorizer, no API key, its own function', () => {
    expect(ROUTES.filter((route) => route.group === 'unsubscribe').map((route) => `${route.method} ${route.path} ${route.auth}`)).toEqual([
      'GET /api/v1/unsubscribe/{token} none',
      'HEAD /api/v1/unsubscribe/{token} none',
      'POST /api/v1/unsubscribe/{token} none',
    ]);
    const methods = methodsOf('unsubscribe');
    expect(methods.map((method) => `${method.HttpMethod} ${resources[method.ResourceId.Ref]?.Properties.PathPart}`).sort()).toEqual(['GET {token}', 'HEAD {token}', 'POST {token}']);
    for (const method of methods) {
      expect(method).toMatchObject({ AuthorizationType: 'NONE', ApiKeyRequired: false });
      expect(method.AuthorizerId).toBeUndefined();
    }
  });

  it('serves the suppression list with an API key only', () => {
    expect(methodsOf('suppressions').map((method) => `${method.HttpMethod} ${method.AuthorizationType} apiKeyRequired=${method.ApiKeyRequired}`).sort()).toEqual([
      'DELETE CUSTOM apiKeyRequired=true',
      'GET CUSTOM apiKeyRequired=true',
      'POST CUSTOM apiKeyRequired=true',
    ]);
  });

  it('keys the links with a generated secret, read by the sender and the unsubscribe function only', () => {
    // Its ARN, read at runtime: the value is never in a function's configuration.
    const arn = { Ref: unsubscribeSecretId() };
    const sender = stack.queueConsumers[OUTREACH.name];
    if (!sender) throw new Error('no outreach consumer');
    expect(envOf(sender.function).UNSUBSCRIBE_SECRET_ARN).toEqual(arn);
    expect(envOf(stack.functions.unsubscribe).UNSUBSCRIBE_SECRET_ARN).toEqual(arn);
    const holders = resourcesOfType(template, 'AWS::Lambda::Function').filter(([, fn]) => 'UNSUBSCRIBE_SECRET_ARN' in (fn.Properties.Environment?.Variables ?? {}));
    expect(holders.map(([id]) => id).sort()).toEqual([logicalId(stack, sender.function), logicalId(stack, stack.functions.unsubscribe)].sort());
    // The sender builds links on the API's public URL (API id and stage: no dependency on the stage or the methods).
    expect(flatten(envOf(sender.function).PUBLIC_API_URL)).toBe(`https://\${${logicalId(stack, stack.api.api)}}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/v1`);
    // The per-IP limit takes its declared default (30 a minute): the stack does not write it.
    expect(Object.keys(envOf(stack.functions.unsubscribe)).sort()).toEqual(['MAX_LEADS_PER_LIST', 'NODE_OPTIONS', 'RUNTIME', 'TABLE_NAME', 'UNSUBSCRIBE_SECRET_ARN']);
  });

  it('lets the unsubscribe function write the table (suppression, request counters, the sequence stop), read its key, and nothing else', () => {
    const actions = policyStatements(template, logicalId(stack, stack.functions.unsubscribe.role as never)).flatMap(actionsOf);
    expect(actions).toContain('dynamodb:UpdateItem');
    expect(actions).toContain('dynamodb:BatchGetItem');
    // Besides the table: tracing, its own log group, and reading its link key.
    expect(actions.filter((action) => !String(action).startsWith('dynamodb:') && !String(action).startsWith('xray:')).sort()).toEqual([
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:GetSecretValue',
    ]);
  });
});
