import type { SerializedError } from '@tributary/contracts';
import type {
  ComponentType,
  DedupedEvent,
  EmittedEvent,
  HttpResponse,
  InvocationResult,
  Json,
  SendRecord,
  ValidationIssue,
} from '@tributary/runtime';

/**
 * The JSON that `tributary run --json` prints, and `POST /v1/actions/run` answers in `data`:
 * exactly one object, documented in docs/cli.md. Built here so the CLI and the server print the same.
 * Scripts and tests rely on these field names; add fields, never rename them.
 */
export interface RunReport {
  ok: boolean;
  type: ComponentType | null;
  return_value: Json | null;
  exports: Record<string, Json>;
  summary: string | null;
  emits: { event: Json; metadata: EmittedEvent['metadata'] }[];
  deduped: { event: Json; metadata: EmittedEvent['metadata']; reason: string }[];
  logs: { level: string; message: string }[];
  exit: { reason: string | null } | null;
  response: { status: number; headers: Record<string, string>; body: string | null } | null;
  /** Each `$.send.*` call; over the server, with its delivery (docs/destinations.md). */
  sends: (SendRecord & { delivery?: SendDelivery })[];
  hooks: { name: string; ok: boolean }[];
  warnings: { rule: string; message: string; prop?: string; field?: string }[];
  error: { code: string; message: string; rule?: string; stack?: string } | null;
}

/** How a send's delivery stands when the run answers (it may still be retrying). */
export interface SendDelivery {
  id: string;
  /** The run's id: `GET /v1/deliveries?run_id=` lists all its deliveries. */
  run_id: string;
  status: 'pending' | 'delivering' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  next_attempt_at: number | null;
}

export function emptyReport(type: ComponentType | null = null): RunReport {
  return {
    ok: false,
    type,
    return_value: null,
    exports: {},
    summary: null,
    emits: [],
    deduped: [],
    logs: [],
    exit: null,
    response: null,
    sends: [],
    hooks: [],
    warnings: [],
    error: null,
  };
}

/** Folds the invocations of one `run` (hooks first, then run) into one report. */
export function buildRunReport(input: {
  readonly type: ComponentType;
  readonly results: readonly InvocationResult[];
  readonly warnings: readonly ValidationIssue[];
}): RunReport {
  const report = emptyReport(input.type);
  report.warnings = input.warnings.filter((issue) => issue.level === 'warning').map(toWarning);
  for (const result of input.results) {
    report.emits.push(...result.emits.map(toEmit));
    report.deduped.push(...result.deduped.map(toDeduped));
    report.logs.push(...result.logs.map((entry) => ({ level: entry.level, message: entry.message })));
    if (result.kind !== 'run') report.hooks.push({ name: result.kind, ok: result.ok });
    if (result.error && !report.error) report.error = toError(result.error);
    if (result.kind === 'run') {
      report.return_value = result.returnValue ?? null;
      report.exports = result.exports;
      report.summary = result.summary;
      report.exit = result.exit;
      report.response = toResponse(result.response);
      report.sends = result.sends;
    }
  }
  report.ok = report.error === null;
  return report;
}

export function toError(error: SerializedError): NonNullable<RunReport['error']> {
  return {
    code: error.code,
    message: error.message,
    ...(error.rule ? { rule: error.rule } : {}),
    ...(error.stack && error.code === 'COMPONENT_ERROR' ? { stack: error.stack } : {}),
  };
}

function toWarning(issue: ValidationIssue): RunReport['warnings'][number] {
  return {
    rule: issue.rule,
    message: issue.message,
    ...(issue.prop ? { prop: issue.prop } : {}),
    ...(issue.field ? { field: issue.field } : {}),
  };
}

function toEmit(emit: EmittedEvent): RunReport['emits'][number] {
  return { event: emit.event, metadata: emit.metadata };
}

function toDeduped(emit: DedupedEvent): RunReport['deduped'][number] {
  return { event: emit.event, metadata: emit.metadata, reason: emit.reason };
}

function toResponse(response: HttpResponse | null): RunReport['response'] {
  if (!response) return null;
  const body =
    response.body === null ? null : Buffer.isBuffer(response.body) ? response.body.toString('utf8') : response.body;
  return { status: response.status, headers: response.headers, body };
}
