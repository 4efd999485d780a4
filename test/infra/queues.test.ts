import { beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../shared/runtime/catalog';
import { type CfnResource, type Json, resourcesOfType } from './template-helpers';
import { sharedSynth } from './monitoring-helpers';

/**
 * Every queue of the stack, as the template has it (reliability practice: a dead-letter queue
 * after at least 5 receives, kept longer than its source; SSE; TLS only; a visibility timeout of
 * at least 6 times its consumer's timeout; partial batch failures). Queue by queue values are
 * pinned elsewhere; this holds for any queue added later.
 */
describe('every SQS queue of the stack', () => {
  let resources: Record<string, CfnResource>;
  let queues: [string, CfnResource][];

  beforeAll(() => {
    const { template } = sharedSynth();
    resources = template.toJSON().Resources as Record<string, CfnResource>;
    queues = resourcesOfType(template, 'AWS::SQS::Queue') as [string, CfnResource][];
  });

  const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
  const retentionOf = (queue: CfnResource): number => queue.Properties.MessageRetentionPeriod ?? 345_600;
  const sources = () => queues.filter(([, queue]) => queue.Properties.RedrivePolicy);

  it('has queues to check: every source queue with its own dead-letter queue', () => {
    expect(sources()).toHaveLength(QUEUES.length);
    const dlqIds = sources().map(([, queue]) => (queue.Properties.RedrivePolicy as Json).deadLetterTargetArn['Fn::GetAtt'][0]);
    expect(new Set(dlqIds).size).toBe(dlqIds.length);
  });

  it('encrypts every queue at rest (SSE)', () => {
    const unencrypted = queues.filter(([, queue]) => queue.Properties.SqsManagedSseEnabled !== true && !queue.Properties.KmsMasterKeyId).map(([id]) => id);
    expect(unencrypted).toEqual([]);
  });

  it('refuses every request to any queue that is not over TLS', () => {
    const policies = Object.values(resources).filter((resource) => resource.Type === 'AWS::SQS::QueuePolicy');
    const withoutTls = queues
      .filter(([id]) => {
        const covering = policies.filter((policy) => (policy.Properties.Queues as Json[]).some((queue) => queue.Ref === id));
        return !covering.some((policy) =>
          (policy.Properties.PolicyDocument.Statement as Json[]).some(
            (statement) =>
              statement.Effect === 'Deny' &&
              statement.Condition?.Bool?.['aws:SecureTransport'] === 'false' &&
              [statement.Resource].flat().some((resource: Json) => JSON.stringify(resource) === JSON.stringify(arnOf(id))),
          ),
        );
      })
      .map(([id]) => id);
    expect(withoutTls).toEqual([]);
  });

  it('dead-letters a message after at least 5 receives, into a queue that keeps it longer than its source', () => {
    const problems = sources().flatMap(([id, queue]) => {
      const redrive = queue.Properties.RedrivePolicy as Json;
      const dlq = resources[redrive.deadLetterTargetArn['Fn::GetAtt'][0]] as CfnResource;
      return [
        ...(redrive.maxReceiveCount >= 5 ? [] : [`${id}: maxReceiveCount ${redrive.maxReceiveCount}`]),
        ...(retentionOf(dlq) > retentionOf(queue) ? [] : [`${id}: its DLQ keeps ${retentionOf(dlq)} s, the queue ${retentionOf(queue)} s`]),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('gives each consumed queue a visibility timeout of at least 6 times its consumer’s timeout, and reports partial batch failures', () => {
    const mappings = Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(sources().length);
    const problems = mappings.flatMap((mapping) => {
      const queueId = mapping.Properties.EventSourceArn['Fn::GetAtt'][0] as string;
      const queue = resources[queueId] as CfnResource;
      const fn = resources[mapping.Properties.FunctionName.Ref] as CfnResource;
      const timeout = fn.Properties.Timeout ?? 3;
      return [
        ...(queue.Properties.VisibilityTimeout >= 6 * timeout ? [] : [`${queueId}: visibility ${queue.Properties.VisibilityTimeout} s, consumer ${timeout} s`]),
        ...(JSON.stringify(mapping.Properties.FunctionResponseTypes) === '["ReportBatchItemFailures"]' ? [] : [`${queueId}: no ReportBatchItemFailures`]),
      ];
    });
    expect(problems).toEqual([]);
  });
});
