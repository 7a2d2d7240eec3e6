const PAGE = 100;
const MAX_ITEMS = 10_000;

/** The cursor query of one page, spread into the `query` of a list call of the generated client. */
export interface PageQuery {
  readonly limit: number;
  readonly after?: string;
}

/** One page of a paginated list (contract §9): its items and the cursor of the next. */
export interface ListPage<T> {
  readonly data: readonly T[];
  readonly page_info: { readonly end_cursor: string | null };
}

/**
 * Every item of a paginated list, following `end_cursor` with `after`. `fetchPage` makes the typed
 * call, e.g. `(page) => client.call(client.api.GET('/v1/accounts', { params: { query: page } }))`.
 */
export async function allPages<T>(fetchPage: (page: PageQuery) => Promise<ListPage<T>>): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage({ limit: PAGE, ...(after ? { after } : {}) });
    items.push(...page.data);
    const next = page.page_info.end_cursor;
    if (page.data.length < PAGE || next === null || next === after || items.length >= MAX_ITEMS) return items;
    after = next;
  }
}
