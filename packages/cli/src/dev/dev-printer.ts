import type { InvocationResult, LogEntry } from '@tributary/runtime';
import { clock, payloadLine, type Output } from '../ui/output.js';

/** A payload line sits under the channel of its `emit` line (`12:00:09   emit [default] …`). */
const INDENT = ' '.repeat('12:00:09   emit '.length);

/** Everything `dev` reports, as human lines or (with --json) one JSON object per line. */
export type DevNotice =
  | {
      type: 'ready';
      file: string;
      name: string | null;
      state_dir: string;
      endpoint_url: string | null;
      timer: string | null;
      watching: string[];
    }
  | { type: 'invocation'; kind: string; trigger: string }
  | { type: 'log'; kind: string; level: string; message: string }
  | { type: 'result'; result: InvocationResult; trigger: string }
  | { type: 'reload'; file: string; applied: boolean }
  | { type: 'error'; code: string; message: string }
  | { type: 'stopped' };

export class DevPrinter {
  constructor(
    private readonly output: Output,
    private readonly json: boolean,
  ) {}

  notice(notice: DevNotice): void {
    if (this.json) {
      this.output.json(this.toJson(notice));
      return;
    }
    const at = this.output.style('dim', clock(Date.now()));
    switch (notice.type) {
      case 'ready':
        this.output.out(`${this.output.style('bold', 'tributary dev')} ${notice.name ?? notice.file}`);
        this.output.out(`  state     ${notice.state_dir}`);
        if (notice.endpoint_url) this.output.out(`  endpoint  ${this.output.style('cyan', notice.endpoint_url)}`);
        if (notice.timer) this.output.out(`  timer     ${notice.timer}`);
        this.output.out(`  watching  ${notice.watching.join(', ')}`);
        this.output.out(this.output.style('dim', '  Ready. Save the file to reload; Ctrl+C to stop.'));
        return;
      case 'invocation':
        this.output.out(`${at} ${this.output.style('bold', notice.kind)} ${this.output.style('dim', notice.trigger)}`);
        return;
      case 'log': {
        const level =
          notice.level === 'info'
            ? ''
            : `${this.output.style(notice.level === 'error' ? 'red' : 'yellow', notice.level)} `;
        this.output.out(`${at}   ${level}${notice.message.split('\n').join('\n           ')}`);
        return;
      }
      case 'result': {
        const { result } = notice;
        for (const emit of result.emits) {
          this.output.out(
            `${at}   ${this.output.style('green', 'emit')} [${emit.metadata.name}] ${emit.metadata.summary}`,
          );
          const payload = payloadLine(emit.event, emit.metadata.summary);
          if (payload !== null) this.output.out(`${INDENT}${this.output.style('dim', payload)}`);
        }
        for (const dropped of result.deduped) {
          this.output.out(
            `${at}   ${this.output.style('dim', `deduped ${dropped.metadata.summary} (${dropped.reason})`)}`,
          );
        }
        const status = result.ok
          ? this.output.style('green', 'ok')
          : this.output.style('red', `failed ${result.error?.code ?? ''}`);
        this.output.out(`${at}   ${result.kind} ${status} ${this.output.style('dim', `${result.durationMs} ms`)}`);
        return;
      }
      case 'reload':
        this.output.out(
          `${at} ${notice.applied ? this.output.style('green', 'reloaded') : this.output.style('red', 'kept the previous code')} ${notice.file}`,
        );
        return;
      case 'error':
        this.output.err(`${at} ${this.output.style('red', 'error')} ${notice.code}: ${notice.message}`);
        return;
      case 'stopped':
        this.output.out(`${at} stopped`);
        return;
    }
  }

  log(kind: string, entry: LogEntry): void {
    this.notice({ type: 'log', kind, level: entry.level, message: entry.message });
  }

  private toJson(notice: DevNotice): unknown {
    if (notice.type !== 'result') return notice;
    const { result } = notice;
    return {
      type: 'result',
      kind: result.kind,
      trigger: notice.trigger,
      ok: result.ok,
      emits: result.emits,
      deduped: result.deduped,
      error: result.error ? { code: result.error.code, message: result.error.message } : null,
      duration_ms: result.durationMs,
    };
  }
}
