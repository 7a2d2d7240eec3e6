// Summarizes a V8 .cpuprofile (node --cpu-prof) into self time per function and per package, so a
// benchmark can say what dominates the server's CPU. Self time of a node = its sample count times
// the mean sampling interval. Also runnable alone: node bench/profile-summary.mjs <file> [top]
import console from 'node:console';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { round } from './lib.mjs';

/** Which package or layer a script URL belongs to. */
function packageOf(url) {
  if (!url) return '(native / idle / gc)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const ours = url.match(/packages\/([^/]+)\//);
  if (ours) return `@tributary/${ours[1]}`;
  return path.basename(url);
}

export function summarizeProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const totalMicros = profile.endTime - profile.startTime;
  const samples = profile.samples?.length ?? 0;
  const interval = samples > 0 ? totalMicros / samples : 0;
  const byFunction = new Map();
  const byPackage = new Map();
  const parentOf = new Map();
  const nodeById = new Map();
  for (const node of profile.nodes) {
    nodeById.set(node.id, node);
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  }
  // The nearest caller in Tributary's own packages: which of our functions the time is spent for.
  // Async continuations lose their callers (a stack after `await` starts at the microtask), so
  // this is the innermost `packages/*` frame of the sampled stack.
  const byOwnCaller = new Map();
  const ownCallerOf = (node) => {
    for (let current = node; current; current = nodeById.get(parentOf.get(current.id))) {
      const { url, functionName, lineNumber } = current.callFrame;
      if (url && /\/packages\/[^/]+\/dist\//.test(url)) {
        return `${functionName || '(anonymous)'} ${url.replace(/^.*\/packages\//, 'packages/')}:${lineNumber + 1}`;
      }
    }
    return '(no Tributary frame on the stack)';
  };
  let idle = 0;
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    total += hits;
    if (name === '(idle)' || name === '(program)') {
      if (name === '(idle)') idle += hits;
      if (name === '(idle)') continue;
    }
    const where = url
      ? `${url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|packages)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${name}\u0000${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
    const pkg = name === '(garbage collector)' ? '(gc)' : name === '(program)' ? '(program)' : packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + hits);
    const own = ownCallerOf(node);
    byOwnCaller.set(own, (byOwnCaller.get(own) ?? 0) + hits);
  }
  const busy = total - idle;
  const percentOf = (hits) => round((hits / Math.max(1, busy)) * 100, 1);
  return {
    note: 'self time as a share of non-idle samples of the server main thread',
    wallSeconds: round(totalMicros / 1e6, 1),
    busySeconds: round((busy * interval) / 1e6, 1),
    idlePercentOfWall: round((idle / Math.max(1, total)) * 100, 1),
    byPackage: [...byPackage.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([pkg, hits]) => ({ package: pkg, selfPercent: percentOf(hits) })),
    byTributaryCaller: [...byOwnCaller.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([caller, hits]) => ({ caller, selfPercent: percentOf(hits) })),
    top: [...byFunction.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, hits]) => {
        const [fn, where] = key.split('\u0000');
        return { fn, where, selfPercent: percentOf(hits) };
      }),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const summary = summarizeProfile(process.argv[2], Number(process.argv[3] ?? 30));
  console.log(JSON.stringify(summary, null, 2));
}
