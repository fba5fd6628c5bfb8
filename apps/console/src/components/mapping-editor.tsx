import { useState } from 'react';
import { api, describeError, ok, type MappingTestResult } from '../api/client';
import { diffLines } from '../diff';
import { useSession } from '../session';
import { ErrorNote, Panel, Time, useLoad } from '../ui';
import { checkJson } from './replay-panel';

/** A first mapping: the operations (an array, or one) that a webhook body becomes. */
const template = (location: string) => `[
  {
    "kind": "document.upsert",
    "organisationId": "${location}",
    "document": {
      "id": order.id,
      "direction": "Inbound",
      "carrier": { "coreName": "SCAC", "coreId": order.carrier }
    }
  }
]`;

const SAMPLE = `{
  "order": { "id": "PO-1", "carrier": "FFRT" }
}`;

/** Where a JSONata error points: the expression's line and column, and a caret under it. */
function pointAt(expression: string, position: number) {
  const before = expression.slice(0, position);
  const lines = before.split('\n');
  const line = lines.length;
  const column = lines[lines.length - 1].length;
  return { line, column, text: expression.split('\n')[line - 1] ?? '' };
}

/** The partner's JSONata webhook mapping: edit, run on a sample payload, compare versions, publish. */
export function MappingEditor({ partnerId, location }: { partnerId: string; location: string }) {
  const { can } = useSession();
  const versions = useLoad(
    () => ok(api.GET('/v1/admin/partners/{id}/mapping/versions', { params: { path: { id: partnerId } } })),
    [partnerId],
  );
  const list = [...(versions.data ?? [])].sort((a, b) => b.version - a.version);
  const latest = list[0];
  const [expression, setExpression] = useState<string>();
  const text = expression ?? latest?.expression ?? template(location);
  const [sample, setSample] = useState(SAMPLE);
  const [result, setResult] = useState<MappingTestResult>();
  const [error, setError] = useState<string>();
  const [published, setPublished] = useState<number>();
  const [compare, setCompare] = useState<{ a?: number; b?: number }>({});
  const sampleCheck = checkJson(sample);
  const sampleError = 'error' in sampleCheck ? sampleCheck.error : undefined;

  const run = async () => {
    if (sampleError) {
      return;
    }
    setError(undefined);
    setResult(undefined);
    try {
      setResult(
        await ok(
          api.POST('/v1/admin/partners/{id}/mapping/test', {
            params: { path: { id: partnerId } },
            // The document types `sample` as an empty object (any JSON, really).
            body: { sample: (sampleCheck as { value: Record<string, never> }).value, expression: text },
          }),
        ),
      );
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const publish = async () => {
    setError(undefined);
    try {
      const saved = await ok(
        api.PUT('/v1/admin/partners/{id}/mapping', { params: { path: { id: partnerId } }, body: { expression: text } }),
      );
      setPublished(saved.version);
      setExpression(undefined);
      versions.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const a = list.find((v) => v.version === (compare.a ?? list[1]?.version));
  const b = list.find((v) => v.version === (compare.b ?? latest?.version));
  const point = result?.error?.position !== undefined ? pointAt(text, result.error.position) : undefined;
  return (
    <Panel title="Webhook mapping (JSONata)">
      <div className="columns">
        <div className="field">
          <label htmlFor="mapping-expression">
            Expression {latest ? `(version ${latest.version} published; editing)` : '(none published yet)'}
          </label>
          <textarea
            id="mapping-expression"
            className="editor"
            rows={14}
            spellCheck={false}
            value={text}
            onChange={(event) => setExpression(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="mapping-sample">Sample webhook payload (JSON)</label>
          <textarea
            id="mapping-sample"
            className="editor"
            rows={14}
            spellCheck={false}
            value={sample}
            aria-invalid={!!sampleError}
            onChange={(event) => setSample(event.target.value)}
          />
          {sampleError && (
            <p className="error" role="alert">
              {sampleError}
            </p>
          )}
        </div>
      </div>
      <div className="buttons">
        {can('operator') && (
          <button type="button" onClick={() => void run()} disabled={!!sampleError}>
            Run on the sample
          </button>
        )}
        {can('admin') && (
          <button type="button" className="secondary" onClick={() => void publish()}>
            Publish as a new version
          </button>
        )}
      </div>
      <ErrorNote error={error} />
      {published && (
        <p className="ok" role="status">
          Published version {published}.
        </p>
      )}
      {result?.error && (
        <div className="error" role="alert" data-testid="mapping-error">
          <p>{result.error.message}</p>
          {point && (
            <pre className="caret">
              {`line ${point.line}, column ${point.column + 1}\n${point.text}\n${' '.repeat(point.column)}^`}
            </pre>
          )}
        </div>
      )}
      {result?.operations && (
        <div data-testid="mapping-result">
          <p>
            {result.operations.length} operation{result.operations.length === 1 ? '' : 's'}:
          </p>
          <pre className="json">{JSON.stringify(result.operations, null, 2)}</pre>
        </div>
      )}
      {list.length > 0 && (
        <details className="versions">
          <summary>Versions ({list.length}) and their differences</summary>
          <ul className="plain">
            {list.map((version) => (
              <li key={version.version}>
                v{version.version} <Time at={version.createdAt} />
              </li>
            ))}
          </ul>
          {list.length > 1 && (
            <>
              <div className="row">
                {(['a', 'b'] as const).map((side) => (
                  <div className="field" key={side}>
                    <label htmlFor={`diff-${side}`}>{side === 'a' ? 'From version' : 'To version'}</label>
                    <select
                      id={`diff-${side}`}
                      value={(side === 'a' ? a : b)?.version}
                      onChange={(event) => setCompare({ ...compare, [side]: Number(event.target.value) })}
                    >
                      {list.map((v) => (
                        <option key={v.version} value={v.version}>
                          v{v.version}
                        </option>
                      ))}
                    </select>
                  </div>
                ))}
              </div>
              <pre className="diff" aria-label="Differences">
                {diffLines(a?.expression ?? '', b?.expression ?? '').map((line, i) => (
                  <span key={i} className={`diff-${line.kind}`}>
                    {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
                    {line.text}
                    {'\n'}
                  </span>
                ))}
              </pre>
            </>
          )}
        </details>
      )}
      <ErrorNote error={versions.error?.startsWith('404') ? undefined : versions.error} />
    </Panel>
  );
}
