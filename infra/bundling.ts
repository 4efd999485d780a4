import type { BuildOptions } from 'esbuild';

/** The provider's client library (shared/providers/unipile-provider.ts), shipped in a layer of its own (constructs/provider-sdk-layer.ts). */
export const PROVIDER_SDK = 'unipile-node-sdk';

/**
 * What every function bundle leaves out: the AWS SDK (the nodejs22.x runtime has it) and the
 * provider SDK (its layer has it).
 */
export const BUNDLE_EXTERNALS = ['@aws-sdk/*', PROVIDER_SDK];

/**
 * esbuild's `supported` setting for function bundles: an `import()` of an external module becomes
 * a `require()`. Lambda finds a layer's modules through NODE_PATH (`/opt/nodejs/node_modules`),
 * which `require` honours and an ES-module `import()` does not.
 */
export const BUNDLE_SUPPORTED = { 'dynamic-import': false } as const;

/**
 * A function's bundle as the CDK stack builds it (constructs/service-function.ts passes the same
 * settings to NodejsFunction): minified CommonJS for Node.js 22, ES-module builds of dependencies
 * preferred, the SDKs left out. The bench and the infrastructure tests build with these.
 */
export const FUNCTION_BUNDLE = {
  bundle: true,
  minify: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  mainFields: ['module', 'main'],
  external: BUNDLE_EXTERNALS,
  supported: BUNDLE_SUPPORTED,
} as const satisfies BuildOptions;
