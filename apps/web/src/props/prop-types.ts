/**
 * The `configurable_props` entries of a component (contract §2.11) as the form sees them, and
 * the conversions between what a control holds and what the API takes.
 */
export interface PropOption {
  readonly label: string;
  readonly value: unknown;
}

export interface FormProp {
  readonly name: string;
  readonly type: string;
  readonly label?: string;
  readonly description?: string;
  readonly optional?: boolean;
  readonly default?: unknown;
  readonly secret?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly options?: readonly unknown[];
  readonly remoteOptions?: boolean;
  readonly useQuery?: boolean;
  readonly reloadProps?: boolean;
  readonly disabled?: boolean;
  readonly hidden?: boolean;
  readonly app?: string;
  readonly alertType?: string;
  readonly content?: string;
}

export function toFormProps(raw: readonly Record<string, unknown>[]): FormProp[] {
  return raw.filter(
    (entry) => typeof entry['name'] === 'string' && typeof entry['type'] === 'string',
  ) as unknown as FormProp[];
}

/** Static options may be plain values or `{ label, value }` (contract §2.5). */
export function normalizeOptions(options: readonly unknown[]): PropOption[] {
  return options.map((option) => {
    if (option !== null && typeof option === 'object' && 'value' in option) {
      const { label, value } = option as { label?: unknown; value: unknown };
      return { label: typeof label === 'string' ? label : String(value), value };
    }
    return { label: String(option), value: option };
  });
}

export function labelOf(prop: FormProp): string {
  return prop.label ?? prop.name;
}

/** Interface props and alerts have no value the user types. */
export function isInputProp(prop: FormProp): boolean {
  return prop.type !== 'alert' && prop.type !== '$.interface.http' && !prop.type.startsWith('$.service');
}

export const REDACTED = '[REDACTED]';

/**
 * The initial value of each prop: the configured value when editing (timers converted back from
 * the API's snake_case echo), else the default.
 */
export function initialValues(
  props: readonly FormProp[],
  configured: Record<string, unknown> = {},
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const prop of props) {
    if (!isInputProp(prop)) continue;
    const current = configured[prop.name];
    if (prop.type === '$.interface.timer') {
      const timer = (current ?? prop.default) as
        { cron?: string | null; interval_seconds?: number | null; intervalSeconds?: number } | undefined;
      if (timer?.cron) values[prop.name] = { cron: timer.cron };
      else values[prop.name] = { intervalSeconds: timer?.intervalSeconds ?? timer?.interval_seconds ?? 3600 };
      continue;
    }
    if (current !== undefined) values[prop.name] = current;
    else if (prop.default !== undefined) values[prop.name] = prop.default;
  }
  return values;
}

/** What is sent: empty optional values are left out so the server applies its defaults. */
export function wireValues(
  props: readonly FormProp[],
  values: Record<string, unknown>,
  only?: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prop of props) {
    if (!isInputProp(prop) || (only && !only.has(prop.name))) continue;
    const value = values[prop.name];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0 && prop.optional)) continue;
    if (prop.secret && value === REDACTED) continue;
    out[prop.name] = value;
  }
  return out;
}
