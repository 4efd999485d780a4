import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { GLOBAL_INDEXES, LOCAL_INDEXES, LOCAL_INDEX_PROJECTION, type LocalIndexProjection, TABLE } from '../../shared/db/table-schema';

export interface SingleTableProps {
  /** Default `GLOBAL_INDEXES`; tests pass their own. */
  globalIndexes?: readonly { name: string; partitionKey: string; sortKey: string }[];
  /** Default `LOCAL_INDEXES`; tests pass their own. */
  localIndexes?: readonly { name: string; sortKey: string }[];
  /** Default `LOCAL_INDEX_PROJECTION` (KEYS_ONLY); `ALL` keeps a table created before 2026-11-26 as it is. */
  localIndexProjection?: LocalIndexProjection;
}

/**
 * The service's single DynamoDB table, built from the same `TABLE`, `GLOBAL_INDEXES` and
 * `LOCAL_INDEXES` the repositories and DynamoDB Local use, so the deployed table cannot drift
 * from the code.
 *
 * It holds the only state the service has: point-in-time recovery is on, the table is retained
 * when the stack is deleted or the resource is replaced, and deletion protection stops it being
 * deleted by hand.
 */
export class SingleTable extends Construct {
  public readonly table: Table;
  /** Every index's name (global, then local): a function that queries indexes may query these. */
  public readonly indexNames: readonly string[];

  constructor(scope: Construct, id: string, props: SingleTableProps = {}) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE.timeToLive,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const globalIndexes = props.globalIndexes ?? GLOBAL_INDEXES;
    const localIndexes = props.localIndexes ?? LOCAL_INDEXES;
    this.indexNames = [...globalIndexes, ...localIndexes].map((index) => index.name);
    for (const index of globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    // Local indexes can only be created with the table: changing this list or their projection
    // later replaces it (and RETAIN then leaves the old one, with the data, behind): docs/deploy.md.
    const projectionType = (props.localIndexProjection ?? LOCAL_INDEX_PROJECTION) === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY;
    for (const index of localIndexes) {
      this.table.addLocalSecondaryIndex({
        indexName: index.name,
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType,
      });
    }
  }
}
