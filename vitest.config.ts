import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The AWS SDK warns about Node 20 on every client; Lambda runs Node 22 and local Node 20 is supported here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export default defineConfig({
  test: {
    // Vitest's default is one worker less than the cores: one on a 2-core machine, where the test
    // files then ran one after another while they mostly wait on DynamoDB Local and HTTP. Two at
    // least (integration 380 s instead of about 500 on 2 cores, 2026-11-28).
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
          testTimeout: 120_000,
          // Synthesising with real bundling (esbuild per function) happens in beforeAll hooks.
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
