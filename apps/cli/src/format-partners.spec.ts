import { formatPartner, formatPartnerList, PartnerSummary } from './format';

const partner = (over: Partial<PartnerSummary> = {}): PartnerSummary => ({
  id: 'acme-wms',
  name: 'ACME WMS',
  enabled: true,
  locationOrganisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01',
  platformAccount: null,
  settings: {},
  source: 'file',
  file: 'config/partners/acme-wms.yaml',
  conflict: null,
  createdAt: '2026-10-01T12:00:00.000Z',
  updatedAt: '2026-11-01T12:00:00.000Z',
  ...over,
});

describe('partner listing: who owns each partner', () => {
  it('shows the source column, api! for a conflict, and a note about it', () => {
    const lines = formatPartnerList([
      partner(),
      partner({
        id: 'fast-freight',
        source: 'api',
        file: null,
        conflict: { file: 'config/partners/fast-freight.yaml', detectedAt: '2026-11-01T12:00:00.000Z' },
      }),
    ]);
    expect(lines[0]).toMatch(/^ID +NAME +ENABLED +LOCATION +SOURCE +INGRESS$/);
    expect(lines[1]).toMatch(/^acme-wms +ACME WMS +yes +\S+ +file +api only$/);
    expect(lines[2]).toMatch(/^fast-freight +ACME WMS +yes +\S+ +api! +api only$/);
    expect(lines.at(-1)).toContain('1 partner owned by the API with a partner file that is ignored');
  });

  it('show names the owning file, or the conflict and how to resolve it', () => {
    expect(formatPartner({ ...partner(), apiKeys: [] }).join('\n')).toContain(
      'owned by its file config/partners/acme-wms.yaml',
    );
    const api = formatPartner({
      ...partner({
        source: 'api',
        file: null,
        conflict: { file: 'config/partners/acme-wms.yaml', detectedAt: '2026-11-01T12:00:00.000Z' },
      }),
      apiKeys: [],
    }).join('\n');
    expect(api).toContain('owned by the admin API');
    expect(api).toContain('conflict: config/partners/acme-wms.yaml names this partner and is ignored');
    expect(api).toContain('/v1/admin/partners/acme-wms/release');
  });
});
