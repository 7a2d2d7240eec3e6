import { list } from '@tributary/contracts';
import type { z } from 'zod';
import type { ApiClient, Query } from './api-client.js';

const PAGE = 100;
const MAX_ITEMS = 10_000;

/** Every item of a paginated list, following `end_cursor` with `after`. */
export async function allPages<T extends z.ZodType>(
  client: ApiClient,
  pathname: string,
  item: T,
  query: Query = {},
): Promise<z.infer<T>[]> {
  const items: z.infer<T>[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.get(pathname, list(item), { ...query, limit: PAGE, ...(after ? { after } : {}) });
    items.push(...(page.data as z.infer<T>[]));
    const next = page.page_info.end_cursor;
    if (page.data.length < PAGE || next === null || next === after || items.length >= MAX_ITEMS) return items;
    after = next;
  }
}
