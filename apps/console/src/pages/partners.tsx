import { api, ok } from '../api/client';
import { href } from '../router';
import { useSession } from '../session';
import { Badge, ErrorNote, Panel, Time, useLoad } from '../ui';

export function PartnersPage() {
  const { can } = useSession();
  const partners = useLoad(() => ok(api.GET('/v1/admin/partners')), []);
  return (
    <>
      <h1>Partners</h1>
      <Panel
        title="Every partner"
        actions={
          can('admin') && (
            <a className="button" href={href('/partners/new')}>
              New partner
            </a>
          )
        }
      >
        <ErrorNote error={partners.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">Partner</th>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Owned by</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody aria-busy={partners.loading}>
            {partners.data?.map((partner) => (
              <tr key={partner.id}>
                <td>
                  <a href={href(`/partners/${partner.id}`)}>{partner.id}</a>
                </td>
                <td>{partner.name}</td>
                <td>
                  <Badge value={partner.enabled ? 'enabled' : 'disabled'} />
                </td>
                <td>{partner.source === 'file' ? `file ${partner.file ?? ''}` : 'the admin API'}</td>
                <td>
                  <Time at={partner.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
    </>
  );
}
