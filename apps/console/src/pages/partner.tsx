import { useState, type FormEvent } from 'react';
import { api, describeError, ok, type Schemas } from '../api/client';
import { MappingEditor } from '../components/mapping-editor';
import { checkJson } from '../components/replay-panel';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { Badge, ErrorNote, Panel, ShownOnce, Time, useLoad } from '../ui';

type Partner = Schemas['PartnerWithKeysSchema'];

export function PartnerPage({ id }: { id: string }) {
  const creating = id === 'new';
  const partner = useLoad(
    () =>
      creating ? Promise.resolve(undefined) : ok(api.GET('/v1/admin/partners/{id}', { params: { path: { id } } })),
    [id],
  );
  if (!creating && !partner.data) {
    return (
      <>
        <h1>Partner {id}</h1>
        <ErrorNote error={partner.error} />
      </>
    );
  }
  return (
    <>
      <h1>{creating ? 'New partner' : `Partner ${id}`}</h1>
      <Profile
        partner={partner.data}
        onSaved={(saved) => (creating ? navigate(`/partners/${saved}`) : partner.reload())}
      />
      {partner.data && (
        <>
          <MappingEditor partnerId={partner.data.id} location={partner.data.locationOrganisationId} />
          <div className="columns">
            <SftpUsers partnerId={partner.data.id} />
            <ApiKeys partner={partner.data} onChange={partner.reload} />
          </div>
          <WebhookSecrets partnerId={partner.data.id} />
          <p>
            <a href={href('/messages', { partner: partner.data.id })}>Its messages</a> ·{' '}
            <a href={href('/activity', { target: `partner:${partner.data.id}` })}>Its activity</a>
          </p>
        </>
      )}
    </>
  );
}

function Profile({ partner, onSaved }: { partner?: Partner; onSaved: (id: string) => void }) {
  const { can } = useSession();
  const [id, setId] = useState(partner?.id ?? '');
  const [name, setName] = useState(partner?.name ?? '');
  const [location, setLocation] = useState(partner?.locationOrganisationId ?? '');
  const [enabled, setEnabled] = useState(partner?.enabled ?? true);
  const [settings, setSettings] = useState(JSON.stringify(partner?.settings ?? {}, null, 2));
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const checked = checkJson(settings);
  const invalid = 'error' in checked ? checked.error : undefined;
  const readOnly = !can('admin');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (invalid) {
      return;
    }
    setError(undefined);
    try {
      await ok(
        api.PUT('/v1/admin/partners/{id}', {
          params: { path: { id } },
          body: {
            name,
            enabled,
            locationOrganisationId: location,
            settings: (checked as { value: Schemas['PartnerSettingsSchema'] }).value,
          },
        }),
      );
      setSaved(true);
      onSaved(id);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  return (
    <Panel title="Profile">
      {partner?.source === 'file' && (
        <p className="warn">Owned by its file {partner.file}: saving here is refused until it is adopted by the API.</p>
      )}
      <form onSubmit={(event) => void submit(event)} aria-label="Partner profile">
        <fieldset disabled={readOnly}>
          <div className="row">
            <div className="field">
              <label htmlFor="partner-id">Id (slug)</label>
              <input
                id="partner-id"
                required
                pattern="[a-z0-9][a-z0-9._-]*"
                value={id}
                readOnly={!!partner}
                onChange={(event) => setId(event.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor="partner-name">Name</label>
              <input id="partner-name" required value={name} onChange={(event) => setName(event.target.value)} />
            </div>
            <div className="field grow">
              <label htmlFor="partner-location">Location organisation (uuid)</label>
              <input
                id="partner-location"
                required
                className="mono"
                value={location}
                onChange={(event) => setLocation(event.target.value)}
              />
            </div>
            <label className="check">
              <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
              Enabled
            </label>
          </div>
          <div className="field">
            <label htmlFor="partner-settings">Settings (JSON: edi, webhook, exports, directory, organisations)</label>
            <textarea
              id="partner-settings"
              className="editor"
              rows={8}
              spellCheck={false}
              value={settings}
              aria-invalid={!!invalid}
              onChange={(event) => setSettings(event.target.value)}
            />
            {invalid && (
              <p className="error" role="alert">
                {invalid}
              </p>
            )}
          </div>
          {!readOnly && (
            <button type="submit" disabled={!!invalid}>
              {partner ? 'Save' : 'Create partner'}
            </button>
          )}
        </fieldset>
      </form>
      <ErrorNote error={error} />
      {saved && (
        <p className="ok" role="status">
          Saved.
        </p>
      )}
    </Panel>
  );
}

function SftpUsers({ partnerId }: { partnerId: string }) {
  const { can } = useSession();
  const users = useLoad(
    () => ok(api.GET('/v1/admin/partners/{id}/sftp-users', { params: { path: { id: partnerId } } })),
    [partnerId],
  );
  const [username, setUsername] = useState('');
  const [kind, setKind] = useState<'password' | 'publicKey'>('password');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string>();
  const add = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      await ok(
        api.POST('/v1/admin/partners/{id}/sftp-users', {
          params: { path: { id: partnerId } },
          body: { username, ...(kind === 'password' ? { password: secret } : { publicKey: secret }) },
        }),
      );
      setUsername('');
      setSecret('');
      users.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const revoke = async (name: string) => {
    try {
      await ok(
        api.DELETE('/v1/admin/partners/{id}/sftp-users/{username}', {
          params: { path: { id: partnerId, username: name } },
        }),
      );
      users.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  return (
    <Panel title="SFTP users">
      <ul className="plain" data-testid="sftp-users">
        {users.data?.map((user) => (
          <li key={user.id}>
            <strong>{user.username}</strong> {user.hasPassword && 'password'}{' '}
            {user.publicKeyType && `· ${user.publicKeyType} ${user.publicKeyFingerprint ?? ''}`}{' '}
            {user.revokedAt ? (
              <Badge value="revoked" />
            ) : (
              can('admin') && (
                <button type="button" className="link" onClick={() => void revoke(user.username)}>
                  Revoke
                </button>
              )
            )}
          </li>
        ))}
        {users.data?.length === 0 && <li className="muted">None.</li>}
      </ul>
      {can('admin') && (
        <form onSubmit={(event) => void add(event)} aria-label="Add an SFTP user">
          <div className="field">
            <label htmlFor="sftp-username">User name</label>
            <input
              id="sftp-username"
              required
              pattern="[a-z0-9._-]{2,63}"
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          </div>
          <fieldset>
            <legend>Credential</legend>
            <label className="check">
              <input type="radio" name="sftp-kind" checked={kind === 'password'} onChange={() => setKind('password')} />
              Password
            </label>
            <label className="check">
              <input
                type="radio"
                name="sftp-kind"
                checked={kind === 'publicKey'}
                onChange={() => setKind('publicKey')}
              />
              Public key
            </label>
          </fieldset>
          <div className="field">
            <label htmlFor="sftp-secret">
              {kind === 'password' ? 'Password (12 characters or more)' : 'OpenSSH public key line'}
            </label>
            {kind === 'password' ? (
              <input
                id="sftp-secret"
                type="password"
                autoComplete="new-password"
                minLength={12}
                required
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
              />
            ) : (
              <textarea
                id="sftp-secret"
                rows={3}
                required
                className="mono"
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
              />
            )}
          </div>
          <button type="submit">Add SFTP user</button>
        </form>
      )}
      <ErrorNote error={error} />
    </Panel>
  );
}

const isoOrUndefined = (local: string) => (local ? new Date(local).toISOString() : undefined);

function ApiKeys({ partner, onChange }: { partner: Partner; onChange: () => void }) {
  const { can } = useSession();
  const [label, setLabel] = useState('');
  const [expires, setExpires] = useState('');
  const [issued, setIssued] = useState<string>();
  const [error, setError] = useState<string>();
  const issue = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const result = await ok(
        api.POST('/v1/admin/partners/{id}/api-keys', {
          params: { path: { id: partner.id } },
          body: { label, expiresAt: isoOrUndefined(expires) },
        }),
      );
      setIssued(result.key);
      setLabel('');
      onChange();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const revoke = async (keyId: string) => {
    try {
      await ok(api.DELETE('/v1/admin/partners/{id}/api-keys/{keyId}', { params: { path: { id: partner.id, keyId } } }));
      onChange();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  return (
    <Panel title="API keys">
      {issued && <ShownOnce label="New API key" value={issued} />}
      <ul className="plain">
        {partner.apiKeys.map((key) => (
          <li key={key.id}>
            <strong>{key.label}</strong> <span className="mono">dbk_{key.keyPrefix}…</span>{' '}
            {key.revokedAt ? (
              <Badge value="revoked" />
            ) : key.expiresAt ? (
              <>
                expires <Time at={key.expiresAt} />
              </>
            ) : null}{' '}
            <span className="muted">
              last used <Time at={key.lastUsedAt} />
            </span>{' '}
            {!key.revokedAt && can('admin') && (
              <button type="button" className="link" onClick={() => void revoke(key.id)}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
      {can('admin') && (
        <form onSubmit={(event) => void issue(event)} aria-label="Issue an API key" className="row">
          <div className="field">
            <label htmlFor="key-label">Label</label>
            <input id="key-label" required value={label} onChange={(e) => setLabel(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="key-expires">Expires (optional: for a rotation)</label>
            <input
              id="key-expires"
              type="datetime-local"
              value={expires}
              onChange={(e) => setExpires(e.target.value)}
            />
          </div>
          <button type="submit">Issue key</button>
        </form>
      )}
      <ErrorNote error={error} />
    </Panel>
  );
}

function WebhookSecrets({ partnerId }: { partnerId: string }) {
  const { can } = useSession();
  const secrets = useLoad(
    () => ok(api.GET('/v1/admin/partners/{id}/webhook-secrets', { params: { path: { id: partnerId } } })),
    [partnerId],
  );
  const [label, setLabel] = useState('');
  const [shown, setShown] = useState<string>();
  const [error, setError] = useState<string>();
  const add = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const result = await ok(
        api.POST('/v1/admin/partners/{id}/webhook-secrets', { params: { path: { id: partnerId } }, body: { label } }),
      );
      setShown(result.secret);
      setLabel('');
      secrets.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const expire = async (secretId: string) => {
    // The end of a rotation: the old secret stops verifying in a day, once the sender has the new one.
    const at = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    try {
      await ok(
        api.POST('/v1/admin/partners/{id}/webhook-secrets/{secretId}/expire', {
          params: { path: { id: partnerId, secretId } },
          body: { at },
        }),
      );
      secrets.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  return (
    <Panel title="Webhook secrets">
      {shown && <ShownOnce label="New webhook secret" value={shown} />}
      <ul className="plain">
        {secrets.data?.map((secret) => (
          <li key={secret.id}>
            <strong>{secret.label}</strong> <span className="mono">{secret.fingerprint}</span>{' '}
            {secret.expiresAt ? (
              <>
                expires <Time at={secret.expiresAt} />
              </>
            ) : (
              can('admin') && (
                <button type="button" className="link" onClick={() => void expire(secret.id)}>
                  Expire in 24 h (rotation)
                </button>
              )
            )}
          </li>
        ))}
        {secrets.data?.length === 0 && <li className="muted">None.</li>}
      </ul>
      {can('admin') && (
        <form onSubmit={(event) => void add(event)} aria-label="Add a webhook secret" className="row">
          <div className="field">
            <label htmlFor="secret-label">Label</label>
            <input id="secret-label" required value={label} onChange={(e) => setLabel(e.target.value)} />
          </div>
          <button type="submit">Generate secret</button>
        </form>
      )}
      <ErrorNote error={error ?? secrets.error} />
    </Panel>
  );
}
