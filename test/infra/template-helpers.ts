import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, type CfnElement, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll } from 'vitest';
import { type OutreachConfig, loadConfig } from '../../infra/config';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import type { FunctionGroup } from '../../shared/http/route-table';
import { REPO_ROOT } from '../../infra/paths';

export type Json = any;

export interface CfnResource {
  Type: string;
  Properties: Record<string, Json>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** The context `cdk synth` uses (feature flags and settings from cdk.json). */
export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')).context;
}

/** An App with cdk.json's context; `bundle: false` skips esbuild (for throwaway stacks). */
export function testApp({ bundle, context = {} }: { bundle: boolean; context?: Record<string, unknown> }): App {
  return new App({
    context: { ...cdkJsonContext(), ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }), ...context },
  });
}

/** The stack of cdk.json's context for a describe block: its app and config at once, the stack and template once its `beforeAll` has run. */
export interface DefaultStack {
  app: App;
  config: OutreachConfig;
  stack: OutreachStack;
  template: Template;
  /** The logical id of a function group's function. */
  fnId(group: FunctionGroup): string;
  /** A function's environment variables in the template. */
  envOf(id: string): Record<string, unknown>;
}

/** Synthesizes the stack of cdk.json's context once, before the tests of the describe block it is called in (unbundled, it is `sharedStack`'s). */
export function useDefaultStack(options: { bundle: boolean }): DefaultStack {
  const app = testApp(options);
  const config = loadConfig(app.node);
  const synthesized: DefaultStack = {
    app,
    config,
    stack: undefined as unknown as OutreachStack,
    template: undefined as unknown as Template,
    fnId: (group) => logicalId(synthesized.stack, synthesized.stack.functions[group]),
    envOf: (id) => synthesized.template.toJSON().Resources[id].Properties.Environment.Variables,
  };
  beforeAll(() => {
    if (!options.bundle) {
      // Unbundled, it is the shared stack (named SharedProbe, not config.stackName).
      ({ app: synthesized.app, stack: synthesized.stack, template: synthesized.template } = sharedStack());
      return;
    }
    synthesized.stack = new OutreachStack(app, config.stackName, { config });
    // Template.fromStack also fails on a dependency cycle (CloudFormation would reject the stack).
    synthesized.template = Template.fromStack(synthesized.stack);
  });
  return synthesized;
}

/** The name of the stack `sharedStack` synthesizes (alarm names, metric names and the dashboard carry it). */
export const SHARED_STACK_NAME = 'SharedProbe';

interface SharedSynthesis {
  app: App;
  config: OutreachConfig;
  stack: OutreachStack;
  json: Json;
}
let sharedSynthesis: SharedSynthesis | undefined;

/**
 * The stack of cdk.json's context, without bundling, named `SharedProbe`: synthesized once for
 * every file that reads it (the infra project runs its files in one module graph, `isolate:
 * false` in vitest.config.ts; a synthesis is about 5 s). Each call gets a template of its own, a
 * copy, so a test that changes what it reads leaves the next file's untouched. The stack object
 * is shared: read it, never add to it.
 */
export function sharedStack(): { app: App; config: OutreachConfig; stack: OutreachStack; template: Template } {
  if (!sharedSynthesis) {
    const app = testApp({ bundle: false });
    const config = loadConfig(app.node);
    const stack = new OutreachStack(app, SHARED_STACK_NAME, { config });
    // Template.fromStack also fails on a dependency cycle (CloudFormation would reject the stack).
    const json = Template.fromStack(stack).toJSON();
    sharedSynthesis = { app, config, stack, json };
  }
  const { app, config, stack, json } = sharedSynthesis;
  return { app, config, stack, template: Template.fromJSON(structuredClone(json), { skipCyclicalDependenciesCheck: true }) };
}

export function resourcesOfType(template: Template, type: string): [string, CfnResource][] {
  return Object.entries(template.toJSON().Resources as Record<string, CfnResource>).filter(([, resource]) => resource.Type === type);
}

export const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/**
 * A CloudFormation value as readable text: `Fn::Join` is joined, `{Ref: X}` becomes `${X}` and
 * `Fn::GetAtt` becomes `${X.Attr}`, so ARNs built from tokens can be compared as strings.
 */
export function flatten(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value && typeof value === 'object') {
    const object = value as Record<string, Json>;
    if ('Ref' in object) return `\${${object.Ref}}`;
    if ('Fn::GetAtt' in object) return `\${${[object['Fn::GetAtt']].flat().join('.')}}`;
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(flatten).join(separator);
    }
  }
  return JSON.stringify(value);
}

export interface PolicyStatementJson {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: Record<string, Record<string, unknown>>;
}

/** Statements of every IAM policy attached to a role. */
export function policyStatements(template: Template, roleLogicalId: string): PolicyStatementJson[] {
  return resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties.Roles as unknown[]).some((role) => flatten(role) === `\${${roleLogicalId}}`))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

export const actionsOf = (statement: { Action: string | string[] }): string[] => [statement.Action].flat();
export const resourcesOf = (statement: { Resource: unknown }): string[] => [statement.Resource].flat().map(flatten);

/**
 * A role's DynamoDB access as readable lists: its actions on the table (no `dynamodb:` prefix),
 * the indexes it may Query, statements under a condition, and any DynamoDB action on another
 * resource (`Action resource`). Statements CDK merged are taken apart again.
 */
export function dynamoAccess(template: Template, roleLogicalId: string, tableLogicalId: string) {
  const tableArn = `\${${tableLogicalId}.Arn}`;
  const table = new Set<string>();
  const indexes = new Set<string>();
  const conditional: { actions: string[]; resources: string[]; condition: unknown }[] = [];
  const elsewhere = new Set<string>();
  for (const statement of policyStatements(template, roleLogicalId)) {
    const actions = actionsOf(statement).filter((action) => action.startsWith('dynamodb:'));
    if (actions.length === 0) continue;
    if (statement.Condition) {
      conditional.push({ actions, resources: resourcesOf(statement), condition: statement.Condition });
      continue;
    }
    for (const resource of resourcesOf(statement)) {
      for (const action of actions) {
        if (resource === tableArn) table.add(action.slice('dynamodb:'.length));
        else if (resource.startsWith(`${tableArn}/index/`) && action === 'dynamodb:Query') indexes.add(resource.slice(`${tableArn}/index/`.length));
        else elsewhere.add(`${action} ${resource}`);
      }
    }
  }
  return { table: [...table].sort(), indexes: [...indexes].sort(), conditional, elsewhere: [...elsewhere].sort() };
}
