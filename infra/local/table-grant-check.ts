import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableAction, TableGrant } from '../table-access';

/**
 * The local runtime's stand-in for IAM on the table: each function's client refuses, as its
 * deployed role would, a call its TableGrant (infra/table-access.ts, what the CDK stack grants)
 * does not allow: an item action not granted, a Query on an index its `queriesIndexes` does not name, an
 * action allowed only on named attributes that names another. So a missing grant fails the
 * integration tests and `npm start` instead of answering AccessDenied in AWS.
 *
 * What it mirrors of IAM: the action of each call (BatchWriteItem, BatchGetItem as themselves;
 * each part of a transaction as its own action, TransactGetItems as GetItem), the index a Query
 * names, and `dynamodb:Attributes` (keys and the attributes named by the update, condition and
 * projection expressions) with `dynamodb:ReturnValues` NONE for the attribute-limited actions. It
 * does not look at which items a call touches: the grants do not either.
 */

/** Thrown in place of DynamoDB's AccessDeniedException. */
export class TableGrantViolation extends Error {
  override readonly name = 'AccessDeniedException';
}

interface Call {
  action: TableAction | 'Scan' | 'Other';
  index?: string;
  /** Attribute names the request names (for `onlyAttributes`); computed only for such a grant (bulk calls are many). */
  attributes: () => string[];
  returnValues?: string;
}

const KEY_ATTRIBUTES = new Set(['pk', 'sk']);

/** Attribute names in an expression: `#name` placeholders resolved, plain names as they are. */
function attributesOf(expression: string | undefined, names: Record<string, string> | undefined): string[] {
  if (!expression) return [];
  const withoutValues = expression.replace(/:[A-Za-z0-9_]+/g, ' ');
  const tokens = withoutValues.match(/#?[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  const keywords = /^(SET|REMOVE|ADD|DELETE|AND|OR|NOT|BETWEEN|IN|if_not_exists|list_append|attribute_exists|attribute_not_exists|attribute_type|begins_with|contains|size)$/i;
  return tokens.filter((token) => !keywords.test(token)).map((token) => (token.startsWith('#') ? (names?.[token] ?? token) : token));
}

function attributesOfRequest(input: Record<string, unknown>): string[] {
  const names = input.ExpressionAttributeNames as Record<string, string> | undefined;
  return [
    ...attributesOf(input.UpdateExpression as string | undefined, names),
    ...attributesOf(input.ConditionExpression as string | undefined, names),
    ...attributesOf(input.ProjectionExpression as string | undefined, names),
    ...Object.keys((input.Item as Record<string, unknown> | undefined) ?? {}),
  ];
}

/** The IAM-relevant calls one SDK command makes. */
function callsOf(command: string, input: Record<string, unknown>): Call[] {
  const name = command.replace(/Command$/, '');
  switch (name) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return [{ action: name, attributes: () => attributesOfRequest(input), returnValues: input.ReturnValues as string | undefined }];
    case 'Query':
      return [{ action: 'Query', ...(input.IndexName ? { index: input.IndexName as string } : {}), attributes: () => [] }];
    case 'Scan':
      return [{ action: 'Scan', attributes: () => [] }];
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Record<string, unknown>[]).map(() => ({ action: 'GetItem' as const, attributes: () => [] }));
    case 'TransactWriteItems':
      return ((input.TransactItems ?? []) as Record<string, Record<string, unknown>>[]).map((part) => {
        if (part.Put) return { action: 'PutItem' as const, attributes: () => attributesOfRequest(part.Put ?? {}) };
        if (part.Update) return { action: 'UpdateItem' as const, attributes: () => attributesOfRequest(part.Update ?? {}), returnValues: part.Update.ReturnValuesOnConditionCheckFailure as string | undefined };
        if (part.Delete) return { action: 'DeleteItem' as const, attributes: () => attributesOfRequest(part.Delete ?? {}) };
        return { action: 'ConditionCheckItem' as const, attributes: () => attributesOfRequest(part.ConditionCheck ?? {}) };
      });
    default:
      return [{ action: 'Other', attributes: () => [] }];
  }
}

/** Why the grant refuses the call, or undefined when it allows it. */
function refusal(grant: TableGrant | undefined, call: Call): string | undefined {
  const resource = call.index ? `index ${call.index}` : 'the table';
  if (!grant) return `dynamodb:${call.action} on ${resource}: the function has no table grant`;
  if (call.action === 'Scan' || call.action === 'Other') return `dynamodb:${call.action} on ${resource}: never granted`;
  if (call.index) {
    if (!grant.queriesIndexes) return `dynamodb:Query on ${resource}: the grant has no queriesIndexes`;
    if (grant.queriesIndexes !== true && !(grant.queriesIndexes as readonly string[]).includes(call.index)) {
      return `dynamodb:Query on ${resource}: the grant's queriesIndexes are ${grant.queriesIndexes.join(', ')}`;
    }
    return undefined;
  }
  if (grant.actions.includes(call.action)) return undefined;
  const limited = grant.onlyAttributes;
  if (limited?.actions.includes(call.action)) {
    const allowed = new Set([...KEY_ATTRIBUTES, ...limited.attributes]);
    const others = [...new Set(call.attributes())].filter((attribute) => !allowed.has(attribute));
    if (others.length > 0) return `dynamodb:${call.action} on ${resource}: only on ${limited.attributes.join(', ')}, not ${others.join(', ')}`;
    if (call.returnValues !== undefined && call.returnValues !== 'NONE') return `dynamodb:${call.action} on ${resource}: ReturnValues must be NONE`;
    return undefined;
  }
  return `dynamodb:${call.action} on ${resource}: not granted`;
}

/**
 * Installs the check on a function's client. A refused call throws before it is sent, and is
 * recorded in `violations` (the local stack reports them when it stops, so a refusal that the
 * function swallowed is not lost).
 */
export function checkTableGrant(functionName: string, grant: TableGrant | undefined, violations: string[]): (db: DynamoDBDocumentClient) => void {
  return (db) => {
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        for (const call of callsOf(context.commandName ?? '', input)) {
          const reason = refusal(grant, call);
          if (reason) {
            const message = `${functionName} is not authorized to perform ${reason} (local check of infra/table-access.ts)`;
            violations.push(message);
            throw new TableGrantViolation(message);
          }
        }
        return next(args);
      },
      { step: 'initialize', name: 'tableGrantCheck' },
    );
  };
}
