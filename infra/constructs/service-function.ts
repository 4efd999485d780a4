import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { LOCK_FILE, REPO_ROOT, fromRepoRoot } from '../paths';

/**
 * esbuild emits ESM, but some dependencies still call `require` for Node built-ins; ESM has no
 * `require`, so the bundle defines one.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export type TableAccessLevel = 'read' | 'readWrite';

export interface ServiceFunctionProps extends Omit<NodejsFunctionProps, 'entry' | 'runtime' | 'architecture' | 'logGroup'> {
  /** Entry file relative to the repo root, e.g. `functions/http/health/handler.ts`. */
  entry: string;
  /** Log retention of the function's own log group. Default one month. */
  logRetention?: RetentionDays;
}

/**
 * The one way this project builds a Lambda function: Node.js 22 on ARM64, an ESM bundle
 * (@middy/core is ESM-only) with source maps switched on at runtime, the AWS SDK v3 left to the
 * runtime, and an explicit log group with a retention period (Lambda's implicit one keeps logs
 * forever).
 */
export class ServiceFunction extends NodejsFunction {
  /** The name given in props, if any: known at synth time, unlike `functionName` (a Ref). */
  public readonly fixedFunctionName: string | undefined;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { entry, logRetention, bundling, environment, ...rest } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention ?? RetentionDays.ONE_MONTH,
      // Logs are diagnostics, not data: they go with the function.
      removalPolicy: RemovalPolicy.DESTROY,
    });
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
      environment: { NODE_OPTIONS: '--enable-source-maps', ...environment },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        externalModules: ['@aws-sdk/*'],
        banner: ESM_REQUIRE_BANNER,
        ...bundling,
      },
    });
    this.fixedFunctionName = props.functionName;
  }

  /**
   * Points the function at the table and grants exactly the access it needs, in one call, so the
   * two can never drift apart. `read` covers the table and its indexes; `readWrite` adds writes,
   * deletes and transactions.
   */
  bindTable(table: ITable, access: TableAccessLevel): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    if (access === 'read') table.grantReadData(this);
    else table.grantReadWriteData(this);
    return this;
  }
}
