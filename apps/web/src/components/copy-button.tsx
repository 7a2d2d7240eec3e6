import { useState } from 'react';

/** Copies a value; says "Copied" for a moment so keyboard and screen-reader users know it worked. */
export function CopyButton({
  value,
  label = 'Copy',
  ariaLabel,
}: {
  readonly value: string;
  readonly label?: string;
  /** For a long value (JSON), a name that says what is copied instead of reading it all out. */
  readonly ariaLabel?: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="button button-small"
      aria-label={ariaLabel ?? `${label}: ${value}`}
      onClick={() => {
        void copyText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      <span aria-live="polite">{copied ? 'Copied' : label}</span>
    </button>
  );
}

/** Clipboard API where allowed (secure contexts), else the selection fallback for plain http hosts. */
export async function copyText(value: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(value);
    return;
  }
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}
