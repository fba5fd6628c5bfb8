import { useMemo, useState, type DragEvent } from 'react';
import { api, describeError, ok, type Schemas } from '../api/client';
import { X12View } from '../components/x12-view';
import { Badge, bytes, ErrorNote, Panel, useLoad } from '../ui';
import { locateBySet, splitX12 } from '../x12';

type Preview = Schemas['EdiPreviewSchema'];

/** A file dropped here is read as its partner's gateway would read it: sets, documents, problems, acknowledgments. */
export function EdiPreviewPage() {
  const partners = useLoad(() => ok(api.GET('/v1/admin/partners')), []);
  const [partner, setPartner] = useState('');
  const [file, setFile] = useState<{ name: string; text: string }>();
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<string>();
  const [over, setOver] = useState(false);
  const chosen = partner || partners.data?.find((p) => p.settings.edi)?.id || partners.data?.[0]?.id || '';

  const run = async (next: { name: string; text: string }) => {
    setFile(next);
    setPreview(undefined);
    setError(undefined);
    try {
      setPreview(
        await ok(
          api.POST('/v1/admin/edi/preview', {
            params: { query: { partner: chosen } },
            body: next.text,
            bodySerializer: (body: string) => body,
            headers: { 'content-type': 'application/edi-x12' },
          }),
        ),
      );
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const take = async (files: FileList | null) => {
    const first = files?.[0];
    if (first) {
      await run({ name: first.name, text: await first.text() });
    }
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    void take(event.dataTransfer.files);
  };
  const x12 = useMemo(() => (file ? splitX12(file.text) : undefined), [file]);
  const problems = useMemo(
    () => (x12 && preview ? locateBySet(x12, preview.transactionSets as Parameters<typeof locateBySet>[1]) : []),
    [x12, preview],
  );
  return (
    <>
      <h1>EDI preview</h1>
      <Panel title="A file, as its partner would be told">
        <div className="row">
          <div className="field">
            <label htmlFor="preview-partner">Partner</label>
            <select id="preview-partner" value={chosen} onChange={(event) => setPartner(event.target.value)}>
              {partners.data?.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id} {p.settings.edi ? '(EDI)' : ''}
                </option>
              ))}
            </select>
          </div>
          <div
            className={`dropzone${over ? ' over' : ''}`}
            onDragOver={(event) => {
              event.preventDefault();
              setOver(true);
            }}
            onDragLeave={() => setOver(false)}
            onDrop={drop}
          >
            <label htmlFor="preview-file">Drop an X12 file here, or choose one</label>
            <input id="preview-file" type="file" onChange={(event) => void take(event.target.files)} />
          </div>
        </div>
        {file && (
          <p className="muted">
            {file.name}, {bytes(file.text.length)}
          </p>
        )}
        <ErrorNote error={error} />
      </Panel>
      {preview && (
        <>
          <Panel title="Summary">
            <p data-testid="preview-summary">
              {preview.summary.interchanges} interchange(s), {preview.summary.sets} set(s): {preview.summary.accepted}{' '}
              accepted, {preview.summary.rejected} rejected; {preview.summary.documents} document(s).
            </p>
            {preview.problems.length > 0 && (
              <ul className="error">
                {preview.problems.map((problem, i) => (
                  <li key={i}>{problem}</li>
                ))}
              </ul>
            )}
            <ul className="plain">
              {preview.interchanges.map((i) => (
                <li key={i.key}>
                  ISA13 <span className="mono">{i.control}</span> from <span className="mono">{i.senderId}</span>{' '}
                  {i.refused ? <Badge value="rejected" /> : <Badge value="received" />} {i.duplicate && 'duplicate'}{' '}
                  {i.reason}
                </li>
              ))}
            </ul>
            {preview.interchanges.length < preview.summary.interchanges && (
              <p className="muted">
                The first {preview.interchanges.length} of {preview.summary.interchanges} interchanges, with their
                acknowledgments.
              </p>
            )}
          </Panel>
          <Panel title="Transaction sets">
            <table>
              <thead>
                <tr>
                  <th scope="col">Set</th>
                  <th scope="col">ST02</th>
                  <th scope="col">Document</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Diagnostics</th>
                </tr>
              </thead>
              <tbody>
                {preview.transactionSets.map((set, i) => (
                  <tr key={i}>
                    <td>{set.setId}</td>
                    <td className="mono">{set.transactionControl}</td>
                    <td className="mono">{set.documentId}</td>
                    <td>{set.rejected ? <Badge value="rejected" /> : <Badge value="delivered" />}</td>
                    <td>
                      {set.diagnostics.map((d, j) => (
                        <div key={j} className="reason">
                          {String((d as { message?: string }).message ?? JSON.stringify(d))}
                        </div>
                      ))}
                      {set.notes.map((note, j) => (
                        <div key={`n${j}`} className="muted">
                          {note}
                        </div>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
          {x12 && (
            <Panel title="The file, segment by segment">
              <X12View x12={x12} problems={problems} />
            </Panel>
          )}
          <div className="columns">
            <Panel title="Documents">
              <pre className="json">{JSON.stringify(preview.documents, null, 2)}</pre>
            </Panel>
            <Panel title="Acknowledgments">
              {preview.acknowledgments.map((ack, i) => (
                <div key={i}>
                  <p>
                    {ack.kind} for ISA13 <span className="mono">{ack.acknowledges}</span>
                  </p>
                  <pre className="text">{ack.content}</pre>
                </div>
              ))}
            </Panel>
          </div>
        </>
      )}
    </>
  );
}
