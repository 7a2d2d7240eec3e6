import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessTreeMemory } from '../src/host/process-memory.js';

/** x86-64's page size, which /proc counts in (the test runs there only). */
const PAGE = 4096;

function children(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter((text) => text !== '')
    .map(Number);
}

function resident(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
}

let tree: ChildProcess | null = null;
afterEach(() => {
  tree?.kill('SIGKILL');
  tree = null;
});

describe('ProcessTreeMemory', () => {
  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'sums a tree read from /proc, reading its leaves between walks, and walks again when one ends',
    async () => {
      // A tree like a bubblewrap worker's: an inner process (the shell) above two leaves.
      tree = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { stdio: 'ignore' });
      const root = tree.pid as number;
      let leaves: number[] = [];
      for (let tries = 0; leaves.length < 2 && tries < 100; tries += 1) {
        await delay(20);
        leaves = children(root);
      }
      expect(leaves).toHaveLength(2);
      const memory = new ProcessTreeMemory(root);
      const whole = () => resident(root) + leaves.reduce((sum, pid) => sum + resident(pid), 0);
      // The first read walks the tree; the next ones read the leaves and count the shell as walked.
      for (let read = 0; read < 5; read += 1) expect(memory.rssBytes()).toBe(whole());

      const [ended, kept] = leaves as [number, number];
      process.kill(ended, 'SIGKILL');
      for (let tries = 0; children(root).includes(ended) && tries < 100; tries += 1) await delay(20);
      // The read that finds a leaf gone counts what is left and walks the tree again on the next.
      expect(memory.rssBytes()).toBe(resident(root) + resident(kept));
      leaves = [kept];
      for (let read = 0; read < 3; read += 1) expect(memory.rssBytes()).toBe(whole());
    },
  );
});
