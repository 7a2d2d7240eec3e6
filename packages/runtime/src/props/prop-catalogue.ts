/** What the runtime knows about a prop type (contract §2.4). */
export type PropKind = 'input' | 'app' | 'interface' | 'service' | 'alert' | 'inert' | 'unsupported';

interface PropTypeInfo {
  readonly kind: PropKind;
  readonly arrays: boolean;
  readonly sources: boolean;
  readonly actions: boolean;
}

const CATALOGUE: Readonly<Record<string, PropTypeInfo>> = {
  string: { kind: 'input', arrays: true, sources: true, actions: true },
  integer: { kind: 'input', arrays: true, sources: true, actions: true },
  boolean: { kind: 'input', arrays: true, sources: true, actions: true },
  // Listed only in an upstream guideline; accepted as a float (contract §2.4, [UNC]).
  number: { kind: 'input', arrays: true, sources: true, actions: true },
  object: { kind: 'input', arrays: false, sources: true, actions: true },
  any: { kind: 'input', arrays: false, sources: false, actions: true },
  app: { kind: 'app', arrays: false, sources: true, actions: true },
  '$.interface.http': { kind: 'interface', arrays: false, sources: true, actions: false },
  '$.interface.timer': { kind: 'interface', arrays: false, sources: true, actions: false },
  '$.service.db': { kind: 'service', arrays: false, sources: true, actions: true },
  alert: { kind: 'alert', arrays: false, sources: true, actions: true },
  // Pipedream's request builder: the value is the request's configuration, and `this.<prop>` adds
  // `execute()` (props/http-request-prop.ts).
  http_request: { kind: 'input', arrays: false, sources: true, actions: true },
  // A query with its parameters, `{ query, params }`; a plain string is the query.
  sql: { kind: 'input', arrays: false, sources: true, actions: true },
  // Accepted so published components load; they take no value and do nothing here (docs/compatibility.md).
  dir: { kind: 'inert', arrays: false, sources: true, actions: true },
  '$.interface.apphook': { kind: 'inert', arrays: false, sources: true, actions: false },
  data_store: { kind: 'unsupported', arrays: false, sources: false, actions: true },
};

export interface ParsedPropType {
  readonly base: string;
  readonly isArray: boolean;
  readonly info: PropTypeInfo | undefined;
}

export function parsePropType(type: string): ParsedPropType {
  const isArray = type.endsWith('[]');
  const base = isArray ? type.slice(0, -2) : type;
  return { base, isArray, info: Object.hasOwn(CATALOGUE, base) ? CATALOGUE[base] : undefined };
}

export function propKind(type: string): PropKind {
  return parsePropType(type).info?.kind ?? 'unsupported';
}

export const PROP_TYPE_NAMES: readonly string[] = Object.keys(CATALOGUE);
