import { useState, type FormEvent } from 'react';
import { api, describeError, ok, type Role } from '../api/client';
import { Badge, ErrorNote, Panel, ShownOnce, Time, useLoad } from '../ui';

/** Named operator tokens (admin): who may read, replay or administer; a token is shown once. */
export function OperatorsPage() {
  const operators = useLoad(() => ok(api.GET('/v1/admin/operators')), []);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [expires, setExpires] = useState('');
  const [token, setToken] = useState<string>();
  const [error, setError] = useState<string>();
  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const created = await ok(
        api.POST('/v1/admin/operators', {
          body: { name, role, expiresAt: expires ? new Date(expires).toISOString() : undefined },
        }),
      );
      setToken(created.token);
      setName('');
      operators.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const revoke = async (id: string) => {
    try {
      await ok(api.DELETE('/v1/admin/operators/{id}', { params: { path: { id } } }));
      operators.reload();
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  return (
    <>
      <h1>Operators</h1>
      <Panel title="New operator token">
        {token && <ShownOnce label="Operator token" value={token} />}
        <form className="row" onSubmit={(event) => void create(event)} aria-label="New operator token">
          <div className="field">
            <label htmlFor="operator-name">Name</label>
            <input id="operator-name" required value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="operator-role">Role</label>
            <select id="operator-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <option value="viewer">viewer (read)</option>
              <option value="operator">operator (replay, preview)</option>
              <option value="admin">admin (partners, secrets, tokens)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="operator-expires">Expires (optional)</label>
            <input
              id="operator-expires"
              type="datetime-local"
              value={expires}
              onChange={(e) => setExpires(e.target.value)}
            />
          </div>
          <button type="submit">Create token</button>
        </form>
        <ErrorNote error={error} />
      </Panel>
      <Panel title="Tokens">
        <ErrorNote error={operators.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {operators.data?.map((operator) => (
              <tr key={operator.id}>
                <td>{operator.name}</td>
                <td>{operator.role}</td>
                <td>
                  <Time at={operator.createdAt} /> <span className="muted">by {operator.createdBy}</span>
                </td>
                <td>
                  <Time at={operator.expiresAt} />
                </td>
                <td>
                  <Time at={operator.lastUsedAt} />
                </td>
                <td>
                  {operator.revokedAt ? (
                    <Badge value="revoked" />
                  ) : (
                    <button type="button" className="link" onClick={() => void revoke(operator.id)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
    </>
  );
}
