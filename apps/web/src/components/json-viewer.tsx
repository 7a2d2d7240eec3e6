/** A collapsible JSON tree: objects and arrays fold with native <details>, so it works by keyboard. */
import { countOf } from '@tributary/contracts/count';

export function JsonViewer({
  value,
  label,
  openDepth = 2,
}: {
  readonly value: unknown;
  readonly label?: string;
  readonly openDepth?: number;
}) {
  return (
    <div className="json-viewer" aria-label={label}>
      <JsonNode value={value} name={null} depth={0} openDepth={openDepth} />
    </div>
  );
}

function JsonNode({
  value,
  name,
  depth,
  openDepth,
}: {
  value: unknown;
  name: string | null;
  depth: number;
  openDepth: number;
}) {
  const key = name === null ? null : <span className="json-key">{name}: </span>;
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) {
      return (
        <div className="json-row">
          {key}
          <span className="json-punct">
            {open}
            {close}
          </span>
        </div>
      );
    }
    return (
      <details className="json-branch" open={depth < openDepth}>
        <summary>
          {key}
          <span className="json-punct">{open}</span>
          <span className="json-count"> {countOf(entries.length, Array.isArray(value) ? 'item' : 'key')} </span>
        </summary>
        <div className="json-children">
          {entries.map(([childName, child]) => (
            <JsonNode key={childName} value={child} name={childName} depth={depth + 1} openDepth={openDepth} />
          ))}
        </div>
        <span className="json-punct">{close}</span>
      </details>
    );
  }
  return (
    <div className="json-row">
      {key}
      <span className={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value) ?? 'undefined'}</span>
    </div>
  );
}
