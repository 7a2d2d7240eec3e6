import { countOf, type ServerStatus } from '@tributary/contracts';
import type { Output } from '../ui/output.js';
import { formatTable, relativeTime } from '../ui/table.js';
import type { RemoteCommandFlags } from '../commands/remote-options.js';
import { runRemote } from './remote-command.js';

export async function runStatus(flags: RemoteCommandFlags, output: Output): Promise<number> {
  return runRemote(flags, output, async (client) => {
    const { data } = await client.call(client.api.GET('/v1/status'));
    if (flags.json) return output.json(data);
    const readiness = data.ready ? 'ready' : `NOT READY (${data.not_ready.map((entry) => entry.check).join(', ')})`;
    output.out(
      `Tributary ${data.version} at ${client.baseUrl}: ${readiness}, up ${duration(data.uptime_seconds)} (${data.storage})`,
    );
    for (const entry of data.not_ready) output.out(`  ${entry.check}: ${entry.message}`);
    const queue = data.queue.map((entry) => {
      const [one, many] = KIND_NAMES[entry.kind];
      const oldest = entry.depth > 0 ? ` (oldest ${duration(Math.round(entry.oldest_age_seconds))})` : '';
      return `${countOf(entry.depth, one, many)}${oldest}`;
    });
    output.out(`Queue: ${queue.join(', ')}`);
    output.out(
      `Pool: ${countOf(data.pool.workers, 'worker')}, ${data.pool.busy} busy, ${Math.round(data.pool.memory_bytes / 1048576)} MB`,
    );
    if (data.recent_failures.length === 0) return output.out('Recent failures: none');
    output.out('Recent failures:');
    const rows = data.recent_failures.map((failure) => [
      relativeTime(failure.at),
      ...failureRow(failure, client.baseUrl),
    ]);
    for (const line of formatTable(['WHEN', 'WHAT', 'CODE', 'SEE'], rows)) output.out(line);
  });
}

type Failure = ServerStatus['recent_failures'][number];

/** What failed, its code, and the page of the web app that shows it: a source's logs, or the run. */
function failureRow(failure: Failure, baseUrl: string): [string, string, string] {
  switch (failure.kind) {
    case 'source':
      return [
        `source ${failure.source_name ?? failure.source_id}`,
        failure.code,
        `${baseUrl}/sources/${failure.source_id}/logs`,
      ];
    case 'workflow':
      return [
        `workflow ${failure.workflow_name ?? failure.workflow_id}${failure.step === null ? '' : `, step ${failure.step}`}`,
        failure.code,
        `${baseUrl}/workflows/${failure.workflow_id}/runs/${failure.run_id}`,
      ];
  }
}

/** Each queue's noun, one and many: "1 delivery", "2 deliveries". */
const KIND_NAMES = {
  source: ['source invocation', 'source invocations'],
  workflow: ['workflow run', 'workflow runs'],
  delivery: ['delivery', 'deliveries'],
} as const;

/**
 * `3d 4h`, `2h 5m`, `4m 10s`, `12s`: the two largest units. Kept here rather than a dependency
 * (pretty-ms and the like): it is this loop, and the web app's Settings uses the same rule.
 */
function duration(totalSeconds: number): string {
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.floor(totalSeconds));
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (unit === 's' && parts.length === 0)) parts.push(`${count}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
