import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AssetHashType, DockerImage, Stack } from 'aws-cdk-lib';
import { Architecture, Code, LayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { FUNCTION_BUNDLE, PROVIDER_SDK } from '../bundling';
import { REPO_ROOT } from '../paths';

/** Where a Node.js layer's modules go: the runtime resolves `/opt/nodejs/node_modules`. */
export const providerSdkModuleDir = (layerDir: string): string => path.join(layerDir, 'nodejs', 'node_modules', PROVIDER_SDK);

/**
 * Bundles the provider SDK with its dependencies (a schema library and a QR-code renderer it
 * imports eagerly) into one minified CommonJS module under `layerDir`, as the layer holds it. The
 * bench measures this same output (bench/scenarios/bundles.ts).
 */
export function bundleProviderSdk(layerDir: string): string {
  const moduleDir = providerSdkModuleDir(layerDir);
  mkdirSync(moduleDir, { recursive: true });
  const outfile = path.join(moduleDir, 'index.js');
  buildSync({
    entryPoints: [PROVIDER_SDK],
    absWorkingDir: REPO_ROOT,
    outfile,
    ...FUNCTION_BUNDLE,
    // The layer is the provider SDK itself: only the AWS SDK stays out.
    external: ['@aws-sdk/*'],
    logLevel: 'silent',
  });
  writeFileSync(path.join(moduleDir, 'package.json'), `${JSON.stringify({ name: PROVIDER_SDK, main: 'index.js' })}\n`);
  return outfile;
}

/**
 * The provider SDK as a Lambda layer, one per stack, given to every function.
 *
 * Why a layer: the SDK and what it imports weigh ~320 KB minified, which took the functions that
 * call the provider over the 500 KB a bundle may weigh (issue 2); they load it on their first
 * provider call anyway (`import()` in the provider adapter), never at a cold start. Why every
 * function: which functions reach the provider follows from their import graphs, which the stack
 * does not see; one that reached it without the layer would fail at its first provider call, and
 * a layer a function never requires costs it nothing at its cold start.
 */
export class ProviderSdkLayer extends LayerVersion {
  /** The stack's layer, made on first use. */
  static of(scope: Construct): ProviderSdkLayer {
    const stack = Stack.of(scope);
    const id = 'ProviderSdkLayer';
    return (stack.node.tryFindChild(id) as ProviderSdkLayer | undefined) ?? new ProviderSdkLayer(stack, id);
  }

  private constructor(scope: Construct, id: string) {
    super(scope, id, {
      description: `${PROVIDER_SDK}, bundled: the provider client of the functions that call the provider`,
      compatibleRuntimes: [Runtime.NODEJS_22_X],
      compatibleArchitectures: [Architecture.ARM_64],
      code: Code.fromAsset(path.join(REPO_ROOT, 'node_modules', PROVIDER_SDK), {
        // The output's hash: it also changes with the SDK's dependencies, which live outside its folder.
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never used: the local esbuild build below always succeeds (it throws otherwise).
          image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
          local: {
            tryBundle(outputDir: string): boolean {
              bundleProviderSdk(outputDir);
              return true;
            },
          },
        },
      }),
    });
  }
}
