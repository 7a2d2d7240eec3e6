import { EventSummary, LogEntry } from '@tributary/contracts';
import type { Output } from '../ui/output.js';
import type { ApiClient } from './api-client.js';
import { printEvent, printLog } from './source-view.js';
import { followSse } from './sse-follow.js';

export interface FollowSourceOptions {
  readonly client: ApiClient;
  readonly output: Output;
  readonly sourceId: string;
  readonly json: boolean;
  readonly signal: AbortSignal;
  readonly events?: boolean;
  readonly logs?: boolean;
  readonly lastEventId?: string | null;
  readonly onOpen?: () => void;
}

/** Prints a source's events and/or logs from its SSE streams until the signal aborts. */
export async function followSource(options: FollowSourceOptions): Promise<void> {
  const streams: Promise<void>[] = [];
  let waiting = (options.events !== false ? 1 : 0) + (options.logs === true ? 1 : 0);
  const opened = (): void => {
    waiting -= 1;
    if (waiting === 0) options.onOpen?.();
  };
  const id = encodeURIComponent(options.sourceId);
  // With both streams in one JSON output, each line says which it is.
  const tagged = options.json && options.events !== false && options.logs === true;
  if (options.events !== false) {
    streams.push(
      followSse({
        client: options.client,
        path: `/sources/${id}/sse`,
        signal: options.signal,
        lastEventId: options.lastEventId ?? null,
        onOpen: opened,
        onMessage: (message) => {
          const record = EventSummary.safeParse(parse(message.data));
          if (!record.success) return;
          if (tagged) options.output.json({ type: 'event', ...record.data });
          else printEvent(options.output, record.data, options.json);
        },
      }),
    );
  }
  if (options.logs === true) {
    streams.push(
      followSse({
        client: options.client,
        path: `/sources/${id}/logs/sse`,
        signal: options.signal,
        onOpen: opened,
        onMessage: (message) => {
          const entry = LogEntry.safeParse(parse(message.data));
          if (!entry.success) return;
          if (tagged) options.output.json({ type: 'log', ...entry.data });
          else printLog(options.output, entry.data, options.json);
        },
      }),
    );
  }
  await Promise.all(streams);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
