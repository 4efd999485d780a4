import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. The repo is ESM, so this comes from `import.meta.url`, not `__dirname`. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The lock file esbuild bundling is keyed on. */
export const LOCK_FILE = path.join(REPO_ROOT, 'package-lock.json');

/** An entry file given relative to the repo root (as in `FUNCTION_GROUPS`), made absolute. */
export const fromRepoRoot = (relative: string): string => path.resolve(REPO_ROOT, relative);
