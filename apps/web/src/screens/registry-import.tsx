/**
 * "Import from npm" on the Registry screen: starts an import job, polls it for its progress lines
 * and shows the report (published, unchanged, skipped with the code and rule of each) when it ends.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ImportJobT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { ErrorState } from '../components/states.js';

const POLL_MS = 500;

export function ImportFromNpm() {
  const api = useApi();
  const queryClient = useQueryClient();
  const [spec, setSpec] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: () => api.importPackage(spec.trim()),
    onSuccess: (job) => setJobId(job.id),
  });
  const job = useQuery({
    queryKey: ['import-job', jobId],
    queryFn: () => api.getImportJob(jobId ?? ''),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' || !query.state.data ? POLL_MS : false),
  });
  const finished = job.data && job.data.status !== 'running';
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: ['registry'] });
  }, [finished, queryClient]);
  const running = start.isPending || job.data?.status === 'running';
  return (
    <section className="card settings-section" aria-labelledby="import-title">
      <h2 id="import-title">Import from npm</h2>
      <p className="muted small">
        An npm package of components, such as <code>@pipedream/helper_functions@0.3.13</code>: each of its actions and
        sources is validated and published under its key.
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (spec.trim()) start.mutate();
        }}
      >
        <label className="field-label" htmlFor="import-spec">
          npm package
        </label>
        <input
          id="import-spec"
          value={spec}
          onChange={(event) => setSpec(event.target.value)}
          placeholder="@pipedream/helper_functions@0.3.13"
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="button button-primary" disabled={running || !spec.trim()}>
          {running ? 'Importing…' : 'Import'}
        </button>
      </form>
      {start.error ? <ErrorState error={start.error} /> : null}
      {job.data ? <ImportProgress job={job.data} /> : null}
    </section>
  );
}

function ImportProgress({ job }: { readonly job: ImportJobT }) {
  return (
    <div className="import-job">
      <pre className="code-view import-log" role="log" aria-label="Import progress">
        {job.progress.join('\n')}
      </pre>
      {job.status === 'failed' && job.error ? (
        <div className="notice notice-error" role="alert">
          <strong>{job.error.code}</strong>: {job.error.message}
        </div>
      ) : null}
      {job.reports.map((report) => (
        <div key={`${report.package}@${report.version}`} className="import-report" role="status">
          <h3>
            {report.package}@{report.version}
          </h3>
          <p>
            {report.published.length} published, {report.unchanged.length} unchanged, {report.skipped.length} skipped
            {report.removed.length > 0 ? `, ${report.removed.length} removed` : ''}
          </p>
          {report.skipped.length > 0 ? (
            <div className="table-wrap">
              <table className="table stack-table" aria-label="Skipped components">
                <thead>
                  <tr>
                    <th scope="col">File</th>
                    <th scope="col">Error</th>
                    <th scope="col">Message</th>
                  </tr>
                </thead>
                <tbody>
                  {report.skipped.map((entry) => (
                    <tr key={entry.file}>
                      <td data-label="File">
                        <code>{entry.file}</code>
                      </td>
                      <td data-label="Error">
                        <code>{entry.code}</code>
                        {entry.rule ? <span className="muted small"> rule {entry.rule}</span> : null}
                      </td>
                      <td data-label="Message">{entry.message}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {report.published.length > 0 ? (
            <p className="muted small">
              Published: {report.published.map((entry) => `${entry.key}@${entry.version ?? '-'}`).join(', ')}
            </p>
          ) : null}
        </div>
      ))}
    </div>
  );
}
