import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';
import { startLocalQueues } from '../../infra/local/local-queues';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}

/**
 * Starts DynamoDB Local (in memory) and the SQS emulator once per test run. Each test file then
 * works in its own table and queue namespace, so files never see each other's data.
 */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal();
  const sqs = await startLocalQueues();
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await sqs.stop();
    await dynamo.stop();
  };
}
