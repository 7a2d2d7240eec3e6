import type { DeployedSourceT, EventSummaryT, LogEntryT } from '@tributary/contracts';
import { clock, compact, type Output } from '../ui/output.js';
import { relativeTime } from '../ui/table.js';

/** `describe`'s lines: `id: dc_…`, `name: …`, `endpoint: …` first, as `pd describe` prints them. */
export function describeSource(output: Output, source: DeployedSourceT, uiBase: string): void {
  output.out(`id: ${source.id}`);
  output.out(`name: ${source.name_slug}`);
  if (source.endpoint_url) output.out(`endpoint: ${source.endpoint_url}`);
  output.out(`component: ${source.component_key ?? source.component_id} (${source.component_id})`);
  output.out(`active: ${source.active}`);
  const props = Object.entries(source.configured_props);
  if (props.length > 0) {
    output.out('configured props:');
    for (const [name, value] of props) output.out(`  ${name}: ${compact(value)}`);
  }
  output.out(`created: ${relativeTime(source.created_at)}, updated: ${relativeTime(source.updated_at)}`);
  output.out(`ui: ${uiBase}/sources/${source.id}`);
}

/** `events` prints one JSON payload per event, as `pd events` does. */
export function printEvent(output: Output, record: EventSummaryT, json: boolean): void {
  if (json) output.json(record);
  else output.out(JSON.stringify(record.event));
}

export function printLog(output: Output, entry: LogEntryT, json: boolean): void {
  if (json) {
    output.json(entry);
    return;
  }
  const level =
    entry.level === 'info' ? '' : `${output.style(entry.level === 'error' ? 'red' : 'yellow', entry.level)} `;
  output.out(`${output.style('dim', clock(entry.ts))} ${level}${entry.message}`);
}

/** Resolves on Ctrl+C or SIGTERM (or the given signal), so followers can stop cleanly. */
export function untilInterrupted(signal?: AbortSignal): { readonly signal: AbortSignal; readonly done: Promise<void> } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  signal?.addEventListener('abort', stop, { once: true });
  const done = new Promise<void>((resolve) =>
    controller.signal.addEventListener(
      'abort',
      () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      },
      { once: true },
    ),
  );
  return { signal: controller.signal, done };
}
