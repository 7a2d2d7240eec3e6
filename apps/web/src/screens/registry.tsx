/** Registry: browse and search published components, open one for its props and code, deploy it. */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useApi } from '../auth/session.js';
import { Markdown } from '../components/markdown.js';
import { Empty, QueryView } from '../components/states.js';
import { labelOf, toFormProps } from '../props/prop-types.js';
import { useTitle } from '../components/use-title.js';
import { ImportFromNpm } from './registry-import.js';

export function RegistryScreen() {
  useTitle('Registry');
  const api = useApi();
  const registry = useQuery({ queryKey: ['registry'], queryFn: () => api.listRegistry() });
  const [query, setQuery] = useState('');
  return (
    <section className="page">
      <div className="page-head">
        <h1>Registry</h1>
      </div>
      <ImportFromNpm />
      <div className="field search-field">
        <label className="field-label" htmlFor="registry-search">
          Search components
        </label>
        <input
          id="registry-search"
          type="search"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          placeholder="Name, key or description"
        />
      </div>
      <QueryView query={registry} loadingLabel="Loading the registry…">
        {(page) => {
          const needle = query.trim().toLowerCase();
          const found = page.data.filter(
            (c) => !needle || [c.key, c.name, c.description].some((text) => text?.toLowerCase().includes(needle)),
          );
          if (page.data.length === 0) {
            return (
              <Empty title="Nothing published yet">
                <p>
                  Import an npm package of components above, or publish one with{' '}
                  <code>tributary publish my-source.mjs</code> (it needs a <code>key</code> and a semver{' '}
                  <code>version</code>); it then appears here for anyone on this server to deploy.
                </p>
              </Empty>
            );
          }
          if (found.length === 0) return <Empty title={`No component matches “${query}”`} />;
          return (
            <ul className="card-grid">
              {found.map((c) => (
                <li key={c.id} className="card">
                  <h2 className="card-title">
                    <Link to={`/registry/${encodeURIComponent(c.key ?? c.id)}`}>{c.name ?? c.key}</Link>
                  </h2>
                  <p className="muted small mono">
                    {c.key}@{c.version} · {c.component_type}
                  </p>
                  {c.description ? <Markdown text={c.description} className="markdown clamp" /> : null}
                </li>
              ))}
            </ul>
          );
        }}
      </QueryView>
    </section>
  );
}

export function RegistryItemScreen() {
  const { key = '' } = useParams();
  useTitle(`${key} · Registry`);
  const api = useApi();
  const component = useQuery({ queryKey: ['registry', key], queryFn: () => api.getRegistryComponent(key) });
  return (
    <section className="page">
      <p className="breadcrumb">
        <Link to="/registry">Registry</Link> /
      </p>
      <QueryView query={component} loadingLabel={`Loading ${key}…`}>
        {(c) => (
          <>
            <div className="page-head">
              <div>
                <h1>{c.name ?? c.key}</h1>
                <p className="muted small mono">
                  {c.key}@{c.version} · {c.component_type}
                </p>
              </div>
              {c.component_type === 'source' ? (
                <Link className="button button-primary" to={`/sources/new?key=${encodeURIComponent(c.key ?? c.id)}`}>
                  Deploy
                </Link>
              ) : (
                <Link className="button button-primary" to={`/actions?key=${encodeURIComponent(c.key ?? c.id)}`}>
                  Run
                </Link>
              )}
            </div>
            {c.description ? <Markdown text={c.description} /> : null}
            <h2>Props</h2>
            {c.configurable_props.length === 0 ? (
              <p className="muted">No props.</p>
            ) : (
              <div className="table-wrap">
                <table className="table stack-table">
                  <thead>
                    <tr>
                      <th scope="col">Prop</th>
                      <th scope="col">Type</th>
                      <th scope="col">Description</th>
                    </tr>
                  </thead>
                  <tbody>
                    {toFormProps(c.configurable_props).map((prop) => (
                      <tr key={prop.name}>
                        <td data-label="Prop">
                          <code>{prop.name}</code>{' '}
                          {prop.label && prop.label !== prop.name ? (
                            <span className="muted">({labelOf(prop)})</span>
                          ) : null}
                          {prop.optional ? <span className="muted small"> optional</span> : null}
                        </td>
                        <td data-label="Type">
                          <code>{prop.type}</code>
                        </td>
                        <td data-label="Description">
                          {prop.description ? (
                            <Markdown text={prop.description} />
                          ) : prop.content ? (
                            <Markdown text={prop.content} />
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <h2>Code</h2>
            <pre className="code-view">
              <code>{c.code}</code>
            </pre>
          </>
        )}
      </QueryView>
    </section>
  );
}
