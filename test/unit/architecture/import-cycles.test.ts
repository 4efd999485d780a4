import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../infra/paths';

/**
 * Import cycles in shared/: every relative `import`, `import type`, `export ... from`, `import('…')`
 * and `import('…').Type` counts, since a type-only cycle is still two modules that cannot be
 * understood (or moved) one without the other.
 */

/** Relative module specifiers of one TypeScript source. */
function relativeSpecifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const add = (specifier: ts.Node | undefined) => {
    if (specifier && ts.isStringLiteralLike(specifier) && specifier.text.startsWith('.')) found.push(specifier.text);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names: `x.ts`, `x.tsx`, `x/index.ts`, or `x.js` written for `x.ts`. */
function resolveSpecifier(fromFile: string, specifier: string, exists: (file: string) => boolean): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.(c|m)?js$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
  return candidates.find((candidate) => /\.tsx?$/.test(candidate) && exists(candidate));
}

/**
 * The cycles of the import graph reached from `roots`: one per strongly connected component, as the
 * shortest path from the component's smallest file back to itself.
 */
function findCycles(roots: readonly string[], importsOf: (file: string) => string[]): string[][] {
  const graph = new Map<string, string[]>();
  const pending = [...roots];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (graph.has(file)) continue;
    const targets = [...new Set(importsOf(file))].sort();
    graph.set(file, targets);
    pending.push(...targets);
  }

  // Tarjan's strongly connected components: a cycle lives inside one component.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      components.push(component);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);

  // One concrete path per component: the shortest way from its smallest file back to itself.
  const cycles: string[][] = [];
  for (const component of components) {
    const members = new Set(component);
    const start = [...component].sort()[0] as string;
    if (component.length === 1 && !(graph.get(start) ?? []).includes(start)) continue;
    const previous = new Map<string, string>();
    const queue = [start];
    let closing: string | undefined;
    while (queue.length > 0 && closing === undefined) {
      const file = queue.shift() as string;
      for (const target of graph.get(file) ?? []) {
        if (!members.has(target)) continue;
        if (target === start) {
          closing = file;
          break;
        }
        if (!previous.has(target)) {
          previous.set(target, file);
          queue.push(target);
        }
      }
    }
    const cycle = [start];
    for (let file = closing as string; file !== start; file = previous.get(file) as string) cycle.splice(1, 0, file);
    cycle.push(start);
    cycles.push(cycle);
  }
  return cycles.sort((a, b) => a.join().localeCompare(b.join()));
}

const tsFilesUnder = (dir: string): string[] =>
  readdirSync(dir)
    .map((entry) => path.join(dir, entry))
    .flatMap((entry) => (statSync(entry).isDirectory() ? tsFilesUnder(entry) : /\.tsx?$/.test(entry) ? [entry] : []))
    .sort();

const repoImportsOf = (file: string): string[] =>
  relativeSpecifiers(file, readFileSync(file, 'utf8'))
    .map((specifier) => resolveSpecifier(file, specifier, existsSync))
    .filter((target): target is string => target !== undefined && !target.includes(`${path.sep}node_modules${path.sep}`));

const relative = (file: string) => path.relative(REPO_ROOT, file).split(path.sep).join('/');

describe('import cycles', () => {
  it('reads every kind of relative import, type-only ones too', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "import './side-effect';",
      "export { c } from './c.js';",
      "export * from './d';",
      "export type { E } from './e';",
      "import x = require('./f');",
      "type G = import('./g').G;",
      "const h = () => import('./h');",
      "import { readFileSync } from 'node:fs';",
      "import ts from 'typescript';",
    ].join('\n');
    expect(relativeSpecifiers('x.ts', text)).toEqual(['./a', '../b', './side-effect', './c.js', './d', './e', './f', './g', './h']);
  });

  it('resolves a specifier to its .ts file, a folder to its index, and .js to .ts', () => {
    const files = new Set(['/r/s/a.ts', '/r/s/d/index.ts', '/r/c.ts']);
    const exists = (file: string) => files.has(file);
    expect(resolveSpecifier('/r/s/x.ts', './a', exists)).toBe('/r/s/a.ts');
    expect(resolveSpecifier('/r/s/x.ts', './a.js', exists)).toBe('/r/s/a.ts');
    expect(resolveSpecifier('/r/s/x.ts', './d', exists)).toBe('/r/s/d/index.ts');
    expect(resolveSpecifier('/r/s/x.ts', '../c', exists)).toBe('/r/c.ts');
    expect(resolveSpecifier('/r/s/x.ts', './missing', exists)).toBeUndefined();
  });

  it('reports each cycle once as the path that closes it, and nothing for a graph without one', () => {
    const graph: Record<string, string[]> = {
      a: ['b'],
      b: ['c', 'e'],
      c: ['a'],
      e: ['f'],
      f: [],
      self: ['self'],
      x: ['y'],
      y: ['x', 'a'],
    };
    expect(findCycles(['x', 'self'], (file) => graph[file] ?? [])).toEqual([
      ['a', 'b', 'c', 'a'],
      ['self', 'self'],
      ['x', 'y', 'x'],
    ]);
    expect(findCycles(['e'], (file) => graph[file] ?? [])).toEqual([]);
  });

  it('finds none among the TypeScript files of shared/, counting import type', () => {
    const roots = tsFilesUnder(path.join(REPO_ROOT, 'shared'));
    // The walker sees the real graph: this edge is a plain `import type`.
    expect(repoImportsOf(path.join(REPO_ROOT, 'shared/domain/webhooks/ports.ts')).map(relative)).toContain('shared/domain/webhooks/delivery.ts');
    const cycles = findCycles(roots, repoImportsOf).map((cycle) => cycle.map(relative).join(' -> '));
    expect(cycles).toEqual([]);
  });
});
