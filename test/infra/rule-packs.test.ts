import { Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config';
import { addRulePacks, ruleAcknowledgements } from '../../infra/rule-packs';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { ROUTES } from '../../shared/http/route-table';
import { defineRoute } from '../../shared/http/routes/define';
import { type CfnResource, resourcesOfType, testApp } from './template-helpers';

/** The stack with cdk-nag's AwsSolutions and Serverless packs, as `cdk synth` runs them (infra/app.ts). */
function checkedStack(id: string, extend?: (stack: OutreachStack) => void, context: Record<string, unknown> = {}) {
  const app = testApp({ bundle: false, context });
  const stack = new OutreachStack(app, id, { config: loadConfig(app.node) });
  extend?.(stack);
  addRulePacks(app);
  return { app, stack };
}

describe('cdk-nag rule packs (AwsSolutions, Serverless) on the synthesized stack', () => {
  it('synthesizes with no finding left unacknowledged', () => {
    const { app } = checkedStack('RulePacks');
    expect(() => app.synth()).not.toThrow();
  });

  it('synthesizes with every stage setting a deploy documents set (an alarm email, reserved concurrency, another stack name)', () => {
    const { app } = checkedStack('RulePacksStaging', undefined, { alarmEmail: 'ops@example.com', reservedConcurrency: '{"authorizer":50}' });
    expect(() => app.synth()).not.toThrow();
  });

  it('fails the synthesis on a new finding, naming the rule and the resource', () => {
    const { app } = checkedStack('RulePacksNewFinding', (stack) => new Secret(stack, 'UnreviewedSecret', { description: 'no rotation, no reason' }));
    expect(() => app.synth()).toThrow(/RulePacksNewFinding\/UnreviewedSecret\/Resource[\s\S]*AwsSolutions-SMG4/);
  });

  it('fails the synthesis on a new wildcard permission, even on a function whose X-Ray wildcard is acknowledged', () => {
    const { app } = checkedStack('RulePacksNewWildcard', (stack) =>
      // A wildcard of its own: its finding id differs from the acknowledged X-Ray one.
      stack.functions.campaigns.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: ['arn:aws:sqs:*:*:*'] })),
    );
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5\[Resource::arn:aws:sqs:\*:\*:\*\]/);
  });

  it('gives every acknowledgement a rule, at least one resource and a reason', () => {
    const { stack } = checkedStack('RulePacksReasons');
    const acknowledgements = ruleAcknowledgements(stack);
    for (const { rule, scopes, reason } of acknowledgements) {
      expect(rule, reason).toMatch(/^(AwsSolutions|Serverless)-[A-Za-z0-9]+(\[.+\])?$/);
      expect(scopes.length, rule).toBeGreaterThanOrEqual(1);
      expect(reason.length, rule).toBeGreaterThanOrEqual(60);
    }
    // The anonymous routes are acknowledged one by one, each with its route in the reason.
    const anonymous = acknowledgements.filter(({ rule }) => rule === 'AwsSolutions-APIG4').map(({ reason }) => reason.split(':')[0]);
    expect(anonymous).toEqual(ROUTES.filter((route) => route.auth === 'none').map((route) => `${route.method} ${route.path}`));
  });

  it('refuses a route without credentials whose group has no reason', () => {
    const app = testApp({ bundle: false });
    const probe = defineRoute('campaigns', { method: 'GET', path: '/public/campaigns/open-probe', auth: 'none', summary: 'probe', responses: {} });
    expect(() => new OutreachStack(app, 'RulePacksAnonymousProbe', { config: loadConfig(app.node), routes: [...ROUTES, probe] })).toThrow(
      'Routes without credentials need a reason in infra/rule-packs.ts: GET /api/v1/public/campaigns/open-probe',
    );
  });

  it('uses no AWS managed policy but the account-level API Gateway logging role, and each function writes its own log group only', () => {
    const { stack } = checkedStack('RulePacksRoles');
    const template = Template.fromStack(stack);
    const managed = resourcesOfType(template, 'AWS::IAM::Role').filter(([, role]) => role.Properties.ManagedPolicyArns !== undefined);
    expect(managed.map(([, role]) => JSON.stringify(role.Properties.ManagedPolicyArns))).toEqual([
      JSON.stringify([{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs']] }]),
    ]);
    const logStatements = resourcesOfType(template, 'AWS::IAM::Policy')
      .flatMap(([, policy]: [string, CfnResource]) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: { Action: string | string[] }) => [statement.Action].flat().some((action) => action.startsWith('logs:')));
    expect(logStatements).toHaveLength(25);
    for (const statement of logStatements) {
      expect(statement.Action).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Logs[0-9A-F]{8}$/), 'Arn'] });
    }
  });

  it("stays well inside CloudFormation's 500 resources per stack", () => {
    const { stack } = checkedStack('RulePacksSize');
    const count = Object.keys(Template.fromStack(stack).toJSON().Resources).length;
    // 434 on 2026-11-29 (77 routes, 25 functions, 69 alarms, 2 scheduled jobs' async invoke settings). Past 450, split the stack or use nested stacks before adding more.
    expect(count).toBeLessThanOrEqual(450);
  });
});
