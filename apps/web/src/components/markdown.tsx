import { useMemo } from 'react';
import { renderComponentMarkdown } from '../markdown/render.js';

/** A component author's Markdown (descriptions, alerts), rendered safely. */
export function Markdown({ text, className = 'markdown' }: { readonly text: string; readonly className?: string }) {
  const html = useMemo(() => renderComponentMarkdown(text), [text]);
  return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
