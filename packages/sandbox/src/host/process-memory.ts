import { readFileSync } from 'node:fs';

/**
 * Resident memory of a process and all its descendants, in bytes, read from /proc. A worker
 * inside bubblewrap is a grandchild of the process the host spawned, so the tree is summed.
 * Returns null where /proc is not available.
 */
export function treeRssBytes(pid: number): number | null {
  try {
    let total = 0;
    const stack = [pid];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const current = stack.pop() as number;
      if (seen.has(current)) continue;
      seen.add(current);
      total += rssOf(current);
      for (const child of childrenOf(current)) stack.push(child);
    }
    return total;
  } catch {
    return null;
  }
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((text) => text !== '')
      .map(Number);
  } catch {
    return [];
  }
}
