import { App, Chart, DependencyGraph } from 'cdk8s';
import { Construct } from 'constructs';
import * as fc from 'fast-check';
import { progressWanted, terminalProgress } from '../../src/synth/progress';
import { dependencyOrder } from '../../src/synth/render';

const paths = (cs: { node: { path: string } }[]) => cs.map((c) => c.node.path);

describe('dependencyOrder is DependencyGraph(node).topology()', () => {
  test('on random trees with random acyclic dependencies (including integer-like ids)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            parent: fc.nat(),
            id: fc.oneof(fc.constantFrom('0', '7', '10', '2'), fc.stringMatching(/^[a-z][a-z0-9]{0,3}$/)),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }),
        (specs, edges) => {
          const app = new App();
          const nodes: Construct[] = [];
          specs.forEach((s, i) => {
            const parent = i === 0 ? app : nodes[s.parent % i];
            const id = parent.node.tryFindChild(s.id) ? `${s.id}x${i}` : s.id;
            nodes.push(i % 3 === 0 ? new Chart(parent, id) : new Construct(parent, id));
          });
          // an edge from a later-created node to an earlier one keeps the graph acyclic
          for (const [a, b] of edges) {
            const [from, to] = [a % nodes.length, b % nodes.length];
            if (from > to) nodes[from].node.addDependency(nodes[to]);
          }
          expect(paths(dependencyOrder(app.node))).toEqual(paths(new DependencyGraph(app.node).topology()));
          expect(paths(dependencyOrder(nodes[0].node))).toEqual(paths(new DependencyGraph(nodes[0].node).topology()));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a cycle throws, as cdk8s does', () => {
    const app = new App();
    const a = new Construct(app, 'a');
    const b = new Construct(app, 'b');
    const c = new Construct(app, 'c');
    a.node.addDependency(b);
    b.node.addDependency(c);
    c.node.addDependency(b);
    expect(() => new DependencyGraph(app.node)).toThrow('Dependency cycle detected');
    expect(() => dependencyOrder(app.node)).toThrow('Dependency cycle detected: b => c => b');
    const app2 = new App();
    const x = new Construct(app2, 'x');
    const y = new Construct(app2, 'y');
    x.node.addDependency(y);
    y.node.addDependency(x); // no root at all
    expect(() => dependencyOrder(app2.node)).toThrow('Dependency cycle detected: x => y => x');
  });

  test('a diamond chain that makes cdk8s re-walk 2^n paths is ordered in linear time', () => {
    const app = new App();
    let prev: Construct[] = [];
    for (let level = 0; level < 40; level++) {
      const layer = [new Construct(app, `l${level}a`), new Construct(app, `l${level}b`)];
      for (const n of layer) for (const p of prev) n.node.addDependency(p);
      prev = layer;
    }
    const order = paths(dependencyOrder(app.node));
    expect(order.slice(0, 5)).toEqual(['', 'l0a', 'l0b', 'l1a', 'l1b']);
    expect(order.slice(-2)).toEqual(['l39a', 'l39b']);
    expect(order).toHaveLength(81);
  });
});

describe('progress', () => {
  test('only on a terminal and not in CI', () => {
    expect(progressWanted({ isTTY: true, write: () => true }, {})).toBe(true);
    expect(progressWanted({ isTTY: true, write: () => true }, { CI: 'true' })).toBe(false);
    expect(progressWanted({ isTTY: false, write: () => true }, {})).toBe(false);
    expect(progressWanted({ write: () => true }, {})).toBe(false);
  });

  test('rewrites one line at most every interval, ends it when done; short runs print nothing', () => {
    let t = 0;
    const out: string[] = [];
    const p = terminalProgress({ write: (s: string) => out.push(s) }, { intervalMs: 250, now: () => t });
    for (let i = 1; i <= 3000; i++) {
      t = i / 5; // 600 ms in all
      p(i, 3000);
    }
    expect(out).toEqual([
      '\rsynthesized 1250/3000 charts',
      '\rsynthesized 2500/3000 charts',
      '\rsynthesized 3000/3000 charts in 0.6 s\n',
    ]);
    const quick: string[] = [];
    let t2 = 0;
    const q = terminalProgress({ write: (s: string) => quick.push(s) }, { now: () => t2 });
    for (let i = 1; i <= 10; i++) {
      t2 += 1;
      q(i, 10);
    }
    expect(quick).toEqual([]);
  });
});
