/**
 * Docs (no sign-in): the page's rendered Markdown, a sidebar of pages with a search box over all
 * of them, and a table of contents that follows the scroll. Anchors (`/docs#props`) scroll to
 * their heading; links between pages stay inside the app; code blocks have copy buttons.
 */
import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { Link, NavLink, useLocation, useNavigate, useParams } from 'react-router';
import { copyText } from '../components/copy-button.js';
import { Empty } from '../components/states.js';
import { docGroups, findPage, pagePath, renderPage, searchDocs } from '../docs/pages.js';

export function DocsScreen() {
  const { slug } = useParams();
  const page = findPage(slug);
  const location = useLocation();
  const navigate = useNavigate();
  const content = useRef<HTMLDivElement>(null);
  const rendered = useMemo(() => (page ? renderPage(page) : null), [page]);
  const tocHeadings = useMemo(
    () => rendered?.headings.filter((heading) => heading.depth === 2 || heading.depth === 3) ?? [],
    [rendered],
  );
  const active = useActiveHeading(
    tocHeadings.map((heading) => heading.id),
    page?.slug ?? '',
  );
  // On a phone the page list folds away, so the page itself comes first.
  const narrow = useMediaQuery('(max-width: 760px)');
  const pages = (
    <nav aria-label="Docs pages" className="docs-pages-nav">
      {docGroups().map((group) => {
        const id = `docs-group-${group.title.toLowerCase().replace(/\s+/g, '-')}`;
        return (
          <div key={group.title} className="docs-group">
            <p className="docs-group-title" id={id}>
              {group.title}
            </p>
            <ul aria-labelledby={id}>
              {group.pages.map((candidate) => (
                <li key={candidate.slug}>
                  <NavLink to={pagePath(candidate.slug)} end>
                    {candidate.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );

  useEffect(() => {
    if (page) document.title = `${page.title} · Tributary docs`;
  }, [page]);

  // Scroll to the anchor after the page renders (the router does not do it).
  useEffect(() => {
    const id = decodeURIComponent(location.hash.slice(1));
    if (!id) {
      window.scrollTo(0, 0);
      return;
    }
    document.getElementById(id)?.scrollIntoView();
  }, [location.hash, page?.slug]);

  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const target = event.target as HTMLElement;
    const copy = target.closest<HTMLButtonElement>('[data-copy-code]');
    if (copy) {
      const code = copy.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
      void copyText(code).then(() => {
        copy.textContent = 'Copied';
        setTimeout(() => (copy.textContent = 'Copy'), 1500);
      });
      return;
    }
    const anchor = target.closest<HTMLAnchorElement>('a[href]');
    const href = anchor?.getAttribute('href');
    if (!anchor || !href || anchor.target === '_blank' || event.metaKey || event.ctrlKey || event.shiftKey) return;
    if (href.startsWith('/') || href.startsWith('#')) {
      event.preventDefault();
      navigate(href.startsWith('#') ? { hash: href } : href);
    }
  };

  return (
    <div className="docs-layout">
      <aside className="docs-sidebar" aria-label="Documentation">
        <DocsSearch />
        {narrow ? (
          <details className="docs-pages">
            <summary>All pages</summary>
            {pages}
          </details>
        ) : (
          pages
        )}
      </aside>
      <article className="docs-content">
        {page && rendered ? (
          <div
            ref={content}
            className="markdown doc"
            onClick={onClick}
            dangerouslySetInnerHTML={{ __html: rendered.html }}
          />
        ) : (
          <Empty title="No such page">
            <p>
              There is no <code>docs/{slug ?? 'component-api'}.md</code>. Pick a page on the left, or start at{' '}
              <Link to="/docs">the component API reference</Link>.
            </p>
          </Empty>
        )}
      </article>
      {tocHeadings.length > 0 ? (
        <nav className="docs-toc" aria-label="On this page">
          <p className="toc-title">On this page</p>
          <ul>
            {tocHeadings.map((heading) => (
              <li key={heading.id} className={`toc-depth-${heading.depth}`}>
                <Link
                  to={{ hash: heading.id }}
                  aria-current={active === heading.id ? 'location' : undefined}
                  className={active === heading.id ? 'active' : undefined}
                >
                  {heading.text}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </div>
  );
}

function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const update = () => setMatches(list.matches);
    update();
    list.addEventListener('change', update);
    return () => list.removeEventListener('change', update);
  }, [query]);
  return matches;
}

/** The id of the last heading scrolled past the top of the viewport. */
function useActiveHeading(ids: readonly string[], pageKey: string): string | null {
  const [active, setActive] = useState<string | null>(null);
  useEffect(() => {
    let frame = 0;
    const update = () => {
      frame = 0;
      let current: string | null = ids[0] ?? null;
      for (const id of ids) {
        const element = document.getElementById(id);
        if (element && element.getBoundingClientRect().top <= 96) current = id;
        else if (element) break;
      }
      setActive(current);
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    update();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      window.removeEventListener('scroll', onScroll);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [ids, pageKey]);
  return active;
}

function DocsSearch() {
  const [query, setQuery] = useState('');
  const hits = useMemo(() => searchDocs(query), [query]);
  return (
    <div className="docs-search" role="search">
      <label className="field-label" htmlFor="docs-search">
        Search the docs
      </label>
      <input
        id="docs-search"
        type="search"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        placeholder="e.g. dedupe, $auth, timer"
        autoComplete="off"
      />
      {query.trim() ? (
        <div className="search-results" aria-live="polite">
          {hits.length === 0 ? (
            <p className="muted small">No matches.</p>
          ) : (
            <ul>
              {hits.map((hit) => (
                <li key={`${hit.slug}#${hit.id}`}>
                  <Link to={`${pagePath(hit.slug)}#${hit.id}`} onClick={() => setQuery('')}>
                    <span className="strong">{hit.heading}</span> <span className="muted small">— {hit.pageTitle}</span>
                  </Link>
                  <p className="small muted">{hit.snippet}</p>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </div>
  );
}
