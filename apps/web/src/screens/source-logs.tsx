/**
 * The Logs tab: log lines grouped per invocation (newest invocation first, lines in order),
 * live over SSE, with errors and their stack traces highlighted.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import type { DeployedSourceT, LogEntryT } from '../api/endpoints.js';
import { useEventStream } from '../api/sse.js';
import { useApi, useSession } from '../auth/session.js';
import { StreamBadge } from '../components/stream-status.js';
import { Empty, QueryView } from '../components/states.js';

type LogPage = Awaited<ReturnType<ReturnType<typeof useApi>['listLogs']>>;

interface Group {
  readonly invocation: string | null;
  readonly entries: LogEntryT[];
}

export function groupLogs(entries: readonly LogEntryT[]): Group[] {
  const ordered = [...entries].sort((a, b) => a.ts - b.ts || a.id.localeCompare(b.id, undefined, { numeric: true }));
  const groups: Group[] = [];
  const byId = new Map<string, Group>();
  for (const entry of ordered) {
    const key = entry.invocation_id ?? `none-${entry.id}`;
    let group = byId.get(key);
    if (!group) {
      group = { invocation: entry.invocation_id, entries: [] };
      byId.set(key, group);
      groups.push(group);
    }
    group.entries.push(entry);
  }
  return groups.reverse();
}

export function LogsTab({ source }: { readonly source: DeployedSourceT }) {
  const api = useApi();
  const { signedIn } = useSession();
  const queryClient = useQueryClient();
  const key = ['logs', source.id];
  const logs = useQuery({ queryKey: key, queryFn: () => api.listLogs(source.id) });
  // RUN NOW links to #invocation-ID: that run is marked and brought into view once its lines are here.
  const target = useLocation().hash.slice(1);
  const arrived = Boolean(target && logs.data?.data.some((entry) => `invocation-${entry.invocation_id}` === target));
  useEffect(() => {
    if (arrived) document.getElementById(target)?.scrollIntoView({ block: 'nearest' });
  }, [arrived, target]);
  const status = useEventStream<LogEntryT>({
    path: `/sources/${encodeURIComponent(source.id)}/logs/sse`,
    enabled: signedIn,
    onMessage: (record) =>
      queryClient.setQueryData<LogPage>(key, (page) =>
        !page || page.data.some((entry) => entry.id === record.id)
          ? page
          : { ...page, data: [record, ...page.data].slice(0, 100) },
      ),
    onReopen: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <div className="logs-tab">
      <div className="tab-toolbar">
        <StreamBadge status={status} />
      </div>
      <QueryView query={logs} loadingLabel="Loading logs…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty title="No logs yet">
              <p>
                What the source prints with <code>console.log</code> or <code>console.error</code>, and the errors it
                throws, appear here per invocation.
              </p>
            </Empty>
          ) : (
            <div className="log-view" aria-label="Logs, newest invocation first">
              {groupLogs(page.data).map((group) => (
                <section
                  key={group.invocation ?? group.entries[0]?.id}
                  id={group.invocation ? `invocation-${group.invocation}` : undefined}
                  className={`log-group${target && target === `invocation-${group.invocation}` ? ' log-group-current' : ''}`}
                  aria-current={target === `invocation-${group.invocation}` ? 'true' : undefined}
                >
                  <h3 className="log-marker mono small">
                    {group.invocation ? `Invocation ${group.invocation}` : 'Platform'} ·{' '}
                    {new Date(group.entries[0]?.ts ?? 0).toISOString()}
                  </h3>
                  {group.entries.map((entry) => (
                    <pre key={entry.id} className={`log-line log-${entry.level}`} data-level={entry.level}>
                      <span className="log-time">{new Date(entry.ts).toISOString().slice(11, 23)}</span>{' '}
                      <span className="log-level">{entry.level}</span> {entry.message}
                    </pre>
                  ))}
                </section>
              ))}
            </div>
          )
        }
      </QueryView>
    </div>
  );
}
