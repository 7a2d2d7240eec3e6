/**
 * A code box: CodeMirror (highlighting, line numbers, bracket matching, Ctrl+S / Cmd+S saves),
 * loaded on first use. Until it has loaded, or if it cannot load, a plain textarea stands in with
 * the same size, label and shortcut, so nothing moves and nothing is lost either way.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { CodeMarker, CodeView } from './code-view.js';

export type { CodeMarker };

/** Past this many lines the box scrolls instead of growing. */
const MAX_ROWS = 32; // about two thirds of a laptop screen

/**
 * The box's height in lines: `rows` at least, and otherwise the code's own lines and one to type on,
 * so code a little longer than the box does not hide its last lines behind a scroll bar.
 */
export function boxRows(rows: number, value: string): number {
  const lines = value.split('\n').length + 1;
  return Math.max(rows, Math.min(lines, MAX_ROWS));
}

export function CodeEditor({
  id,
  labelId,
  value,
  onChange,
  onSave,
  rows,
  placeholder,
  marker = null,
}: {
  /** The textarea's id, for the label's `htmlFor` while it stands in. */
  readonly id: string;
  /** The label's id: the editor is named by it (a label's `for` cannot point at an editor). */
  readonly labelId: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly onSave?: () => void;
  readonly rows: number;
  readonly placeholder?: string;
  /** An error the server reported at a line of this code, marked in the editor. */
  readonly marker?: CodeMarker | null;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<CodeView | null>(null);
  const [ready, setReady] = useState(false);
  // The editor is created once; these refs give it the current value and callbacks.
  const latest = useRef({ value, onChange, onSave });
  latest.current = { value, onChange, onSave };

  useEffect(() => {
    let cancelled = false;
    import('./code-view.js')
      .then(({ createCodeView }) => {
        if (cancelled || !host.current) return;
        view.current = createCodeView({
          parent: host.current,
          doc: latest.current.value,
          labelId,
          onChange: (text) => latest.current.onChange(text),
          onSave: () => latest.current.onSave?.(),
        });
        setReady(true);
      })
      .catch(() => {
        // The chunk did not load (an old tab after a deploy, a flaky network): the textarea stays.
      });
    return () => {
      cancelled = true;
      view.current?.destroy();
      view.current = null;
    };
  }, [labelId]);

  // A value set from outside (a reset, a loaded component) reaches the editor too.
  useEffect(() => view.current?.setDoc(value), [value]);
  useEffect(() => view.current?.setMarker(marker), [marker, ready]);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 's' && onSave) {
      event.preventDefault();
      onSave();
    }
  };
  return (
    <div className="code-box" style={{ height: `calc(${boxRows(rows, value)} * 1.45em + 1.2rem)` }} data-ready={ready}>
      {ready ? null : (
        <textarea
          id={id}
          className="code-input"
          spellCheck={false}
          value={value}
          placeholder={placeholder}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
        />
      )}
      <div ref={host} className="code-host" hidden={!ready} />
    </div>
  );
}
