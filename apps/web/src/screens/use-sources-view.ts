/** The Sources list's search, filters and order: component state, mirrored into the URL. */
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { paramsFromView, viewFromParams, type SourcesView } from './sources-filter.js';

/**
 * State first, URL second: an input bound to the URL alone drops keystrokes, because the router
 * applies URL changes in a transition, late and out of step with typing.
 */
export function useSourcesView(): [SourcesView, (view: SourcesView) => void] {
  const [params, setParams] = useSearchParams();
  const [view, setView] = useState(() => viewFromParams(params));
  // Our own writes are remembered and skipped when they arrive; any other URL (a link, Back) wins.
  const pending = useRef(new Set<string>());
  const seen = useRef(params.toString());
  const query = paramsFromView(view).toString();
  useEffect(() => {
    if (params.get('action') === 'create') return;
    const current = params.toString();
    if (current !== seen.current) {
      seen.current = current;
      if (pending.current.has(current)) pending.current.delete(current);
      else {
        pending.current.clear();
        setView(viewFromParams(params));
        return;
      }
    }
    if (query !== current && !pending.current.has(query)) {
      pending.current.add(query);
      setParams(new URLSearchParams(query), { replace: true });
    }
  }, [query, params, setParams]);
  return [view, setView];
}
