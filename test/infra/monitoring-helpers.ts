import { Template } from 'aws-cdk-lib/assertions';
import { loadConfig } from '../../infra/config';
import type { QueueConsumer } from '../../infra/constructs/queue-consumer';
import { OutreachStack } from '../../infra/stacks/outreach-stack';
import { FUNCTION_GROUPS } from '../../shared/http/route-table';
import { QUEUES, SCHEDULES } from '../../shared/runtime/catalog';
import { type CfnResource, type Json, logicalId, resourcesOfType, sharedStack, testApp } from './template-helpers';

export const OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'];
export const FILLED_SUM = 'FILL(getitem, 0) + FILL(batchgetitem, 0) + FILL(query, 0) + FILL(scan, 0) + FILL(putitem, 0) + FILL(updateitem, 0) + FILL(deleteitem, 0) + FILL(batchwriteitem, 0) + FILL(transactwriteitems, 0)';

/** The stack of cdk.json's context (and `context`), without bundling, named `name`. */
export function synth(name: string, context: Record<string, unknown> = {}) {
  const app = testApp({ bundle: false, context });
  const stack = new OutreachStack(app, name, { config: loadConfig(app.node) });
  const template = Template.fromStack(stack);
  return { stack, template, resources: template.toJSON().Resources as Record<string, CfnResource>, alarms: alarmsByName(template) };
}

/** `synth`'s views of the shared stack (template-helpers.ts), named `SharedProbe`. */
export function sharedSynth() {
  const { stack, template } = sharedStack();
  return { stack, template, resources: template.toJSON().Resources as Record<string, CfnResource>, alarms: alarmsByName(template) };
}

/** Every alarm by its name (the dead-letter alarms included: the monitoring names them). */
export const alarmsByName = (template: Template): Map<string, Json> =>
  new Map(resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => [alarm.Properties.AlarmName as string, alarm.Properties]));

/** Views of a synthesized probe stack (alarm names begin with its name); `probe` is read at each call (filled by a beforeAll). */
export function probeViews(probe: () => { stack: OutreachStack; alarms: Map<string, Json> }) {
  const ref = (construct: { node: { defaultChild?: unknown } }) => ({ Ref: logicalId(probe().stack, construct) });
  const topicRef = () => ref(probe().stack.monitoring.topic);
  const alarm = (name: string): Json => {
    const found = probe().alarms.get(`${probe().stack.stackName}-${name}`);
    if (!found) throw new Error(`no alarm ${probe().stack.stackName}-${name}`);
    return found;
  };
  const consumer = (name: string) => probe().stack.queueConsumers[name] as QueueConsumer;
  /** Every function with its key, as the stack names them. */
  const functionKeys = () => [
    ...Object.keys(FUNCTION_GROUPS).map((group) => [`http-${group}`, probe().stack.functions[group as keyof typeof FUNCTION_GROUPS]] as const),
    ['authorizer', probe().stack.authorizer] as const,
    ...QUEUES.map((queue) => [`queue-${queue.name}`, consumer(queue.name).function] as const),
    ...SCHEDULES.map((schedule) => [`schedule-${schedule.name}`, probe().stack.scheduledJobs[schedule.name]?.function] as const),
  ];
  return { ref, topicRef, alarm, consumer, functionKeys };
}
