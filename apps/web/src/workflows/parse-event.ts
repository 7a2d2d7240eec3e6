/** An event typed as JSON text; empty text is no event, text that is not JSON is refused by name. */
export function parseEvent(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error('The event is not JSON');
  }
}
