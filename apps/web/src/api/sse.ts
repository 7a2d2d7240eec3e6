/**
 * A source's SSE stream (contract §9.3) through EventSource, which cannot send headers but does
 * send the same-origin session cookie, which signs the stream in. The browser retries dropped streams by itself (sending Last-Event-ID); when
 * it gives up (status not 200, readyState CLOSED) we open a new one with a growing delay. The
 * status is shown to the user so a lost connection is never silent.
 */
import { useEffect, useRef, useState } from 'react';

export type StreamStatus = 'connecting' | 'open' | 'reconnecting';

export interface StreamOptions<T> {
  /** `/sources/{id}/sse` or `/sources/{id}/logs/sse`; null disables the stream. */
  readonly path: string | null;
  /** False once signed out: the stream closes. */
  readonly enabled: boolean;
  readonly onMessage: (record: T) => void;
  /** Called after a new EventSource had to be opened, to refetch what may have been missed. */
  readonly onReopen?: () => void;
}

const MAX_DELAY_MS = 10_000;

export function useEventStream<T>(options: StreamOptions<T>): StreamStatus {
  const { path, enabled } = options;
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const handlers = useRef(options);
  handlers.current = options;

  useEffect(() => {
    if (!path || !enabled) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    let stopped = false;
    const open = (): void => {
      setStatus(attempts === 0 ? 'connecting' : 'reconnecting');
      source = new EventSource(path);
      source.onopen = () => {
        if (attempts > 0) handlers.current.onReopen?.();
        attempts = 0;
        setStatus('open');
      };
      source.onmessage = (message: MessageEvent<string>) => {
        try {
          handlers.current.onMessage(JSON.parse(message.data) as T);
        } catch {
          // A frame that is not JSON is not one of ours; keep the stream.
        }
      };
      source.onerror = () => {
        if (stopped || !source) return;
        setStatus('reconnecting');
        if (source.readyState === EventSource.CLOSED) {
          source.close();
          attempts += 1;
          retry = setTimeout(open, Math.min(MAX_DELAY_MS, 500 * 2 ** attempts));
        } else {
          attempts = Math.max(attempts, 1);
        }
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [path, enabled]);

  return status;
}
