import { useState, type FormEvent } from 'react';
import { CHANNELS, STATUSES, type MessageFilter } from '../filters';

/** The message filter: every field labelled; submitting puts it in the page's address (shareable, no token). */
export function FilterForm({ initial, onApply }: { initial: MessageFilter; onApply: (filter: MessageFilter) => void }) {
  const [filter, setFilter] = useState<MessageFilter>(initial);
  const set = (patch: Partial<MessageFilter>) => setFilter((current) => ({ ...current, ...patch }));
  const toggle = <T extends string>(list: T[] | undefined, value: T): T[] | undefined => {
    const next = list?.includes(value) ? list.filter((v) => v !== value) : [...(list ?? []), value];
    return next.length ? next : undefined;
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(filter);
  };
  const text = (
    key: 'partner' | 'documentId' | 'fileName' | 'interchange' | 'text',
    label: string,
    placeholder?: string,
  ) => (
    <div className="field">
      <label htmlFor={`filter-${key}`}>{label}</label>
      <input
        id={`filter-${key}`}
        value={filter[key] ?? ''}
        placeholder={placeholder}
        onChange={(event) => set({ [key]: event.target.value || undefined })}
      />
    </div>
  );
  return (
    <form className="filters" onSubmit={submit} aria-label="Message filter">
      <div className="row">
        {text('partner', 'Partner', 'acme-wms')}
        {text('fileName', 'File name', 'exact name')}
        {text('documentId', 'Document id', 'PO-1')}
        {text('interchange', 'Interchange (ISA13)', '000000123')}
        {text('text', 'Reason contains', 'DocumentNotFound')}
        <div className="field">
          <label htmlFor="filter-from">Received from</label>
          <input
            id="filter-from"
            type="datetime-local"
            value={filter.from ?? ''}
            onChange={(event) => set({ from: event.target.value || undefined })}
          />
        </div>
        <div className="field">
          <label htmlFor="filter-to">Received before</label>
          <input
            id="filter-to"
            type="datetime-local"
            value={filter.to ?? ''}
            onChange={(event) => set({ to: event.target.value || undefined })}
          />
        </div>
      </div>
      <div className="row">
        <fieldset>
          <legend>Status</legend>
          {STATUSES.map((status) => (
            <label key={status} className="check">
              <input
                type="checkbox"
                checked={filter.status?.includes(status) ?? false}
                onChange={() => set({ status: toggle(filter.status, status) })}
              />
              {status.replace('_', ' ')}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Channel</legend>
          {CHANNELS.map((channel) => (
            <label key={channel} className="check">
              <input
                type="checkbox"
                checked={filter.channel?.includes(channel) ?? false}
                onChange={() => set({ channel: toggle(filter.channel, channel) })}
              />
              {channel}
            </label>
          ))}
        </fieldset>
        <div className="buttons">
          <button type="submit">Search</button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setFilter({});
              onApply({});
            }}
          >
            Clear
          </button>
        </div>
      </div>
    </form>
  );
}
