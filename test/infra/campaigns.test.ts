import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ROUTES } from '../../shared/http/route-table';
import { CAMPAIGN_SCHEDULING } from '../../shared/runtime/catalog';
import { type CfnResource, actionsOf, logicalId, policyStatements, resourcesOf, resourcesOfType, sharedStack } from './template-helpers';

/** The campaigns function and the campaign-scheduling queue in the stack. */
describe('OutreachStack: campaigns (no bundling)', () => {
  let stack: OutreachStack;
  let template: Template;
  let resources: Record<string, CfnResource>;

  beforeAll(() => {
    ({ stack, template } = sharedStack());
    resources = template.toJSON().Resources;
  });

  const scheduling = () => {
    const consumer = stack.queueConsumers[CAMPAIGN_SCHEDULING.name];
    if (!consumer) throw new Error('no campaign-scheduling queue');
    return consumer;
  };

  it('routes every campaign path to the campaigns function', () => {
    expect(ROUTES.filter((route) => route.group === 'campaigns').map((route) => `${route.method} ${route.path} ${route.auth}`)).toEqual([
      'GET /api/v1/public/campaigns apiKey',
      'POST /api/v1/public/campaigns apiKey',
      'GET /api/v1/public/campaigns/{id} apiKey',
      'PATCH /api/v1/public/campaigns/{id} apiKey',
      'POST /api/v1/public/campaigns/{id}/activate apiKey',
      'POST /api/v1/public/campaigns/{id}/pause apiKey',
      'POST /api/v1/public/campaigns/{id}/resume apiKey',
      'POST /api/v1/public/campaigns/{id}/archive apiKey',
      'GET /api/v1/campaigns apiKeyOrSession',
      'GET /api/v1/public/campaigns/{id}/steps apiKey',
      'POST /api/v1/public/campaigns/{id}/steps apiKey',
      'GET /api/v1/public/campaigns/{id}/steps/{step_id} apiKey',
      'PATCH /api/v1/public/campaigns/{id}/steps/{step_id} apiKey',
      'DELETE /api/v1/public/campaigns/{id}/steps/{step_id} apiKey',
      'POST /api/v1/public/campaigns/{id}/conditions apiKey',
      'GET /api/v1/public/campaigns/{id}/conditions/{condition_id} apiKey',
      'PATCH /api/v1/public/campaigns/{id}/conditions/{condition_id} apiKey',
      'DELETE /api/v1/public/campaigns/{id}/conditions/{condition_id} apiKey',
    ]);
  });

  it('gives the campaigns function the table and the scheduling queue URL, and lets it only send to that queue', () => {
    const fnId = logicalId(stack, stack.functions.campaigns);
    const queueId = logicalId(stack, scheduling().queue);
    expect(resources[fnId]?.Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      TABLE_NAME: { Ref: logicalId(stack, stack.table.table) },
      RUNTIME: 'aws',
      CAMPAIGN_SCHEDULING_QUEUE_URL: { Ref: queueId },
    });
    const roleId = logicalId(stack, stack.functions.campaigns.role as never);
    const onQueue = policyStatements(template, roleId).filter((statement) => resourcesOf(statement).includes(`\${${queueId}.Arn}`));
    expect(onQueue.flatMap(actionsOf).sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
  });

  it('consumes the campaign-scheduling queue one message at a time, with a dead-letter queue after 5 receives', () => {
    const consumer = scheduling();
    const queueId = logicalId(stack, consumer.queue);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack, consumer.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties);
    expect(mappings.filter((mapping) => mapping.EventSourceArn['Fn::GetAtt'][0] === queueId)).toEqual([
      {
        FunctionName: { Ref: logicalId(stack, consumer.function) },
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        // 5 pages of 200 conditional writes at once at most.
        ScalingConfig: { MaximumConcurrency: 5 },
      },
    ]);
    expect(resources[logicalId(stack, consumer.function)]?.Properties.Timeout).toBe(30);
  });

  it("lets the campaign-scheduling consumer's page chain run past Lambda's recursion detection, and no other function", () => {
    // Each page sends the next to its own queue: Lambda's default (Terminate) stops such a chain at
    // its 17th invocation, 3,200 prospects into a campaign's activation.
    const allowed = resourcesOfType(template, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.RecursiveLoop !== undefined)
      .map(([id, fn]) => [id, fn.Properties.RecursiveLoop]);
    expect(allowed).toEqual([[logicalId(stack, scheduling().function), 'Allow']]);
  });
});
