import type { SavedComponentT } from '../api/endpoints.js';

/**
 * Saved components without a registry key, one per component: every code edit saved is a new
 * saved component (its id is its code), so the same component saved again and again would fill
 * the picker with look-alikes. The list comes newest first; the newest of each name, version and
 * type stands for them all.
 */
export function newestSaved(saved: readonly SavedComponentT[], type: 'source' | 'action'): SavedComponentT[] {
  const seen = new Set<string>();
  return saved.filter((component) => {
    if (component.component_type !== type || component.key) return false;
    const identity = JSON.stringify([component.name ?? component.id, component.version ?? '']);
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}
