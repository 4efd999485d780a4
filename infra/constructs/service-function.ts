import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLE } from '../../shared/db/table-schema';
import { LOCK_FILE, REPO_ROOT, fromRepoRoot } from '../paths';
import type { TableGrant } from '../table-access';
import { FUNCTION_BUNDLE } from '../bundling';
import { ProviderSdkLayer } from './provider-sdk-layer';
import type { SingleTable } from './single-table';

export interface ServiceFunctionProps extends Omit<NodejsFunctionProps, 'entry' | 'runtime' | 'architecture' | 'logGroup'> {
  /** Entry file relative to the repo root, e.g. `functions/http/health/handler.ts`. */
  entry: string;
  /** Log retention of the function's own log group. Default one month. */
  logRetention?: RetentionDays;
}

/**
 * The one way this project builds a Lambda function: Node.js 22 on ARM64, a minified CommonJS
 * bundle with source maps switched on at runtime, the AWS SDK v3 left to the runtime, the
 * provider SDK left to its layer (provider-sdk-layer.ts), and an explicit log group with a
 * retention period (Lambda's implicit one keeps logs forever).
 *
 * CommonJS, not ESM: an ESM bundle imports the external SDK through its ES-module build, hundreds
 * of small files, which measured 150–220 ms of cold import on the bench machine; the CommonJS
 * bundle `require`s the SDK's single-file CommonJS build instead (80–140 ms, bench/results/).
 * ESM-only dependencies such as @middy/core are inlined by esbuild, so they work unchanged.
 */
export class ServiceFunction extends NodejsFunction {
  /** The name given in props, if any: known at synth time, unlike `functionName` (a Ref). */
  public readonly fixedFunctionName: string | undefined;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { entry, logRetention, bundling, environment, layers, ...rest } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
      // Logs are diagnostics, not data: they go with the function.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role instead of AWSLambdaBasicExecutionRole, which may create and write any log group
    // of the account: this one writes its own log group only (the group exists, made just above).
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    super(scope, id, {
      timeout: Duration.seconds(10),
      memorySize: 1024,
      ...rest,
      entry: fromRepoRoot(entry),
      projectRoot: REPO_ROOT,
      depsLockFilePath: LOCK_FILE,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      logGroup,
      role,
      layers: [ProviderSdkLayer.of(scope), ...(layers ?? [])],
      environment: { NODE_OPTIONS: '--enable-source-maps', ...environment },
      bundling: {
        // FUNCTION_BUNDLE's settings, in NodejsFunction's terms.
        format: OutputFormat.CJS,
        target: FUNCTION_BUNDLE.target,
        mainFields: [...FUNCTION_BUNDLE.mainFields],
        minify: FUNCTION_BUNDLE.minify,
        sourceMap: true,
        externalModules: [...FUNCTION_BUNDLE.external],
        esbuildArgs: Object.fromEntries(Object.entries(FUNCTION_BUNDLE.supported).map(([feature, on]) => [`--supported:${feature}`, String(on)])),
        ...bundling,
      },
    });
    this.fixedFunctionName = props.functionName;
  }

  /**
   * Grants exactly the item actions the function uses on the table (its TABLE_NAME comes with its
   * declared settings), Query on the indexes if it queries them, and actions limited to named
   * attributes (IAM `dynamodb:Attributes`; the item's keys are always among them, as DynamoDB
   * requires).
   */
  grantTable({ table, indexNames }: SingleTable, grant: TableGrant): this {
    const dynamodb = (actions: readonly string[]) => actions.map((action) => `dynamodb:${action}`);
    if (grant.actions.length > 0) this.addToRolePolicy(new PolicyStatement({ actions: dynamodb(grant.actions), resources: [table.tableArn] }));
    if (grant.queriesIndexes) {
      // Each index by name rather than `index/*`: no wildcard where the names are known.
      const queried = grant.queriesIndexes === true ? indexNames : grant.queriesIndexes;
      const unknown = queried.filter((name) => !indexNames.includes(name));
      if (unknown.length > 0) throw new Error(`${this.node.path}: no index ${unknown.join(', ')} on the table`);
      const indexes = queried.map((name) => `${table.tableArn}/index/${name}`);
      this.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes }));
    }
    if (grant.onlyAttributes) {
      this.addToRolePolicy(
        new PolicyStatement({
          actions: dynamodb(grant.onlyAttributes.actions),
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': [TABLE.partitionKey, TABLE.sortKey, ...grant.onlyAttributes.attributes] },
            // Nor may it read back other attributes through the write's answer.
            StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
          },
        }),
      );
    }
    return this;
  }
}
