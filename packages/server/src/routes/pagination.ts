/** `page_info` of a list response (contract §9.1); cursors are the ids of the first and last items. */
export function pageInfo(items: readonly { id: string }[], total: number, encode: (id: string) => string = (id) => id) {
  const first = items[0];
  const last = items[items.length - 1];
  return {
    total_count: total,
    count: items.length,
    start_cursor: first ? encode(first.id) : null,
    end_cursor: last ? encode(last.id) : null,
  };
}

/** Source cursors are the unpadded base64 of the id, as upstream's are (contract §9.1). */
export const encodeCursor = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');
export const decodeCursor = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8');
