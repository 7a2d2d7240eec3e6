import type { SealedAt, SecretBox } from '../secrets/secret-box.js';

/** A prop as the saved component describes it (configurable_props entry). */
export interface PropDescription {
  readonly name: string;
  readonly type: string;
  readonly secret?: boolean;
}

export const REDACTED = '[REDACTED]';
export const SEALED = '$sealed';

/** Where a prop's sealed value is stored (a source's or a workflow step's props). */
export type PropPlace = (prop: string) => SealedAt;

/** Stored form of configured props: secret string values sealed with the master key. */
export function sealProps(
  values: Readonly<Record<string, unknown>>,
  props: readonly PropDescription[],
  box: SecretBox,
  place: PropPlace,
): Record<string, unknown> {
  const secret = new Set(props.filter((prop) => prop.secret === true).map((prop) => prop.name));
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      secret.has(name) && typeof value === 'string' ? { [SEALED]: box.seal(value, place(name)) } : value,
    ]),
  );
}

/** Configured props in clear, for the worker that runs the component. */
export function openProps(
  stored: Readonly<Record<string, unknown>>,
  box: SecretBox,
  place: PropPlace,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(stored).map(([name, value]) => {
      const sealed =
        value !== null && typeof value === 'object' && SEALED in value
          ? (value as Record<string, string>)[SEALED]
          : undefined;
      return [name, sealed !== undefined ? box.open(sealed, place(name)) : value];
    }),
  );
}

/**
 * Merges an update over what is stored (contract §9.2: configured_props merged over existing). A
 * secret given back as "[REDACTED]" (a form round-tripping what the API showed) keeps its value.
 */
export function mergeProps(
  stored: Readonly<Record<string, unknown>>,
  update: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored };
  for (const [name, value] of Object.entries(update)) {
    if (value === REDACTED && name in stored) continue;
    merged[name] = value;
  }
  return merged;
}

/** How the API shows configured props (contract §9.2): secrets redacted, interfaces described, db left out. */
export function echoProps(input: {
  readonly stored: Readonly<Record<string, unknown>>;
  readonly props: readonly PropDescription[];
  readonly endpointUrl: string | null;
  readonly timer: { readonly cron: string | null; readonly interval_seconds: number | null } | null;
}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prop of input.props) {
    switch (prop.type) {
      case '$.interface.http':
        out[prop.name] = { endpoint_url: input.endpointUrl };
        break;
      case '$.interface.timer':
        out[prop.name] = input.timer;
        break;
      case 'alert':
        break;
      default: {
        if (!(prop.name in input.stored)) break;
        out[prop.name] = prop.secret === true ? REDACTED : input.stored[prop.name];
      }
    }
  }
  return out;
}
