import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Every synthesis of the infrastructure tests writes a cloud assembly (~1.7 MB) into a fresh
 * `cdk.out*` folder of the temporary directory, which CDK never removes: the workers get a
 * temporary directory of their own, removed when the run ends.
 */
export default function setup() {
  const previous = process.env.TMPDIR;
  const own = mkdtempSync(path.join(tmpdir(), 'outreach-infra-tests-'));
  process.env.TMPDIR = own;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(own, { recursive: true, force: true });
  };
}
