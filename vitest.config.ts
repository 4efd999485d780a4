import { defineConfig } from 'vitest/config';

// The AWS SDK warns about Node 20 on every client; Lambda runs Node 22 and local Node 20 is supported here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export default defineConfig({
  test: {
    // Vitest's default: one worker less than the cores, one on a 2-core machine. Two workers there
    // (2026-11-28) took the integration files from about 500 s to 380 s, but DynamoDB Local's JVM
    // shares those cores: under other load a 16 s engine test ran past its 30 s timeout.
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          globalSetup: ['test/support/infra-setup.ts'],
          // One module graph for every file, so that the files reading the stack of cdk.json's context
          // share one synthesis of it (sharedStack, test/infra/template-helpers.ts): about 5 s each.
          isolate: false,
          testTimeout: 120_000,
          // Synthesising with real bundling (esbuild per function) happens in beforeAll hooks.
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
