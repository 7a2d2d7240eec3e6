/** The Sources list's search box, status and trigger filters and sort order. */
import { useId } from 'react';
import type { Sort, SourcesView, Status, TriggerFilter } from './sources-filter.js';
import { SORTS, STATUSES, TRIGGERS } from './sources-filter.js';

const LABELS: Record<Status | TriggerFilter | Sort, string> = {
  all: 'All',
  active: 'Active',
  inactive: 'Inactive',
  http: 'HTTP',
  timer: 'Timer',
  manual: 'Manual only',
  name: 'Name (A–Z)',
  newest: 'Newest first',
  oldest: 'Oldest first',
  updated: 'Recently updated',
};

export function SourcesToolbar({
  view,
  onChange,
  shown,
  total,
}: {
  readonly view: SourcesView;
  readonly onChange: (view: SourcesView) => void;
  readonly shown: number;
  readonly total: number;
}) {
  return (
    <div className="list-toolbar" role="search" aria-label="Filter sources">
      <input
        type="search"
        className="list-search"
        aria-label="Search sources"
        placeholder="Search by name, id, component or URL"
        value={view.q}
        onChange={(event) => onChange({ ...view, q: event.target.value })}
      />
      <Select
        label="Status"
        value={view.status}
        options={STATUSES}
        onChange={(status) => onChange({ ...view, status })}
      />
      <Select
        label="Trigger"
        value={view.trigger}
        options={TRIGGERS}
        onChange={(trigger) => onChange({ ...view, trigger })}
      />
      <Select label="Sort" value={view.sort} options={SORTS} onChange={(sort) => onChange({ ...view, sort })} />
      <span className="muted small nowrap" aria-live="polite">
        {shown === total ? '' : `${shown} of `}
        {total} {total === 1 ? 'source' : 'sources'}
      </span>
    </div>
  );
}

function Select<T extends Status | TriggerFilter | Sort>(props: {
  readonly label: string;
  readonly value: T;
  readonly options: readonly T[];
  readonly onChange: (value: T) => void;
}) {
  const id = useId();
  return (
    <div className="list-filter">
      <label className="small muted" htmlFor={id}>
        {props.label}
      </label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(event.target.value as T)}>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {LABELS[option]}
          </option>
        ))}
      </select>
    </div>
  );
}
