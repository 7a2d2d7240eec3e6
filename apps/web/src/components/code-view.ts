/**
 * The CodeMirror 6 editor behind `CodeEditor`, in its own chunk: only screens that edit code load
 * it, so the main bundle stays small. Colours come from the app's CSS variables, so the editor
 * follows the light and dark themes without a second set of styles.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { tags } from '@lezer/highlight';

/** Where the server said the code is wrong: 1-based line and column, as in its messages. */
export interface CodeMarker {
  readonly line: number;
  readonly column?: number;
  readonly message: string;
}

export interface CodeView {
  readonly setDoc: (text: string) => void;
  /** Marks the line (gutter and text) with the error, or clears the mark with null. */
  readonly setMarker: (marker: CodeMarker | null) => void;
  readonly destroy: () => void;
}

const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.moduleKeyword, tags.operatorKeyword], color: 'var(--json-key)' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--json-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--json-number)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [tags.definition(tags.variableName), tags.function(tags.variableName)], color: 'var(--json-literal)' },
  { tag: [tags.typeName, tags.className], color: 'var(--accent)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--surface)', color: 'var(--text)' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.45', overflow: 'auto' },
  '.cm-gutters': {
    backgroundColor: 'var(--code-block-bg)',
    color: 'var(--muted)',
    borderRight: '1px solid var(--border)',
  },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--accent-weak)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--accent-border)', outline: '1px solid var(--accent)' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--accent-border)' },
});

export function createCodeView(options: {
  readonly parent: HTMLElement;
  readonly doc: string;
  readonly labelId: string;
  readonly onChange: (text: string) => void;
  readonly onSave?: () => void;
}): CodeView {
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        lintGutter(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        javascript({ typescript: true }),
        syntaxHighlighting(highlight),
        // Mod-s first, so it wins over the browser's "save page"; Tab is left to move the focus.
        keymap.of([
          { key: 'Mod-s', preventDefault: true, run: () => (options.onSave?.(), true) },
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        EditorView.contentAttributes.of({ 'aria-labelledby': options.labelId, spellcheck: 'false' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
        theme,
      ],
    }),
  });
  return {
    setDoc: (text) => {
      if (text !== view.state.doc.toString())
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setMarker: (marker) => {
      const { doc } = view.state;
      if (!marker || marker.line < 1 || marker.line > doc.lines) {
        view.dispatch(setDiagnostics(view.state, []));
        return;
      }
      const line = doc.line(marker.line);
      const at = line.from + Math.min(line.length, Math.max(0, (marker.column ?? 1) - 1));
      // From the column to the end of the line; at the very end, the whole line, so the mark shows.
      const from = at < line.to ? at : line.from;
      view.dispatch(setDiagnostics(view.state, [{ from, to: line.to, severity: 'error', message: marker.message }]));
    },
    destroy: () => view.destroy(),
  };
}
