/**
 * Search, filters and order of the Sources list. They live in the URL (`?q=&status=&trigger=&sort=`)
 * so a filtered list can be bookmarked, shared and restored with Back.
 */
import type { DeployedSourceT } from '../api/endpoints.js';
import { triggerKinds, type TriggerKind } from '../components/trigger.js';

export const STATUSES = ['all', 'active', 'inactive'] as const;
export const TRIGGERS = ['all', 'http', 'timer', 'manual'] as const;
export const SORTS = ['name', 'newest', 'oldest', 'updated'] as const;
export type Status = (typeof STATUSES)[number];
export type TriggerFilter = (typeof TRIGGERS)[number];
export type Sort = (typeof SORTS)[number];

export interface SourcesView {
  readonly q: string;
  readonly status: Status;
  readonly trigger: TriggerFilter;
  readonly sort: Sort;
}

const pick = <T extends string>(allowed: readonly T[], value: string | null, fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

export function viewFromParams(params: URLSearchParams): SourcesView {
  return {
    q: params.get('q') ?? '',
    status: pick(STATUSES, params.get('status'), 'all'),
    trigger: pick(TRIGGERS, params.get('trigger'), 'all'),
    sort: pick(SORTS, params.get('sort'), 'name'),
  };
}

/** Only what differs from the defaults, so the plain list stays at a plain `/sources`. */
export function paramsFromView(view: SourcesView): URLSearchParams {
  const params = new URLSearchParams();
  if (view.q) params.set('q', view.q);
  if (view.status !== 'all') params.set('status', view.status);
  if (view.trigger !== 'all') params.set('trigger', view.trigger);
  if (view.sort !== 'name') params.set('sort', view.sort);
  return params;
}

function matches(source: DeployedSourceT, terms: readonly string[]): boolean {
  const haystack = [source.name, source.id, source.component_key ?? '', source.endpoint_url ?? '']
    .join(' ')
    .toLowerCase();
  return terms.every((term) => haystack.includes(term));
}

export function applyView(sources: readonly DeployedSourceT[], view: SourcesView): DeployedSourceT[] {
  const terms = view.q.toLowerCase().split(/\s+/).filter(Boolean);
  const kept = sources.filter(
    (source) =>
      matches(source, terms) &&
      (view.status === 'all' || source.active === (view.status === 'active')) &&
      (view.trigger === 'all' || triggerKinds(source).includes(view.trigger as TriggerKind)),
  );
  const byName = (a: DeployedSourceT, b: DeployedSourceT) => a.name.localeCompare(b.name, undefined, { numeric: true });
  const order: Record<Sort, (a: DeployedSourceT, b: DeployedSourceT) => number> = {
    name: byName,
    newest: (a, b) => b.created_at - a.created_at || byName(a, b),
    oldest: (a, b) => a.created_at - b.created_at || byName(a, b),
    updated: (a, b) => b.updated_at - a.updated_at || byName(a, b),
  };
  return kept.sort(order[view.sort]);
}
