/** Copy and Download for a JSON value (an event's payload): the exact JSON, pretty-printed. */
import { CopyButton } from './copy-button.js';

export function JsonActions({
  value,
  fileName,
  what,
}: {
  readonly value: unknown;
  /** Without `.json`. */
  readonly fileName: string;
  /** Named in the buttons' accessible names, e.g. "event 123-0". */
  readonly what: string;
}) {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return (
    <span className="json-actions">
      <CopyButton value={text} label="Copy JSON" ariaLabel={`Copy the JSON of ${what}`} />
      <button type="button" className="button button-small" onClick={() => download(text, `${fileName}.json`)}>
        Download JSON<span className="visually-hidden"> of {what}</span>
      </button>
    </span>
  );
}

function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // After the click has handed the blob to the download, the URL is not needed.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
