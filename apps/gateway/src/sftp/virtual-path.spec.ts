import { isTemporaryUploadName, resolveVirtualPath } from './virtual-path';

describe('resolveVirtualPath', () => {
  it.each([
    ['', { kind: 'root', path: '/' }],
    ['.', { kind: 'root', path: '/' }],
    ['/', { kind: 'root', path: '/' }],
    ['..', { kind: 'root', path: '/' }],
    ['/../..', { kind: 'root', path: '/' }],
    ['inbound', { kind: 'folder', path: '/inbound', folder: 'inbound' }],
    ['/outbound/', { kind: 'folder', path: '/outbound', folder: 'outbound' }],
    ['//inbound//./', { kind: 'folder', path: '/inbound', folder: 'inbound' }],
    ['/inbound/..', { kind: 'root', path: '/' }],
    ['inbound/po.edi', { kind: 'file', path: '/inbound/po.edi', folder: 'inbound', name: 'po.edi' }],
    ['/outbound/../inbound/x.edi', { kind: 'file', path: '/inbound/x.edi', folder: 'inbound', name: 'x.edi' }],
    ['/../inbound/x', { kind: 'file', path: '/inbound/x', folder: 'inbound', name: 'x' }],
  ])('%j resolves inside the tree', (input, expected) => {
    expect(resolveVirtualPath(input)).toEqual(expected);
  });

  it.each(['/inbound/../../etc/passwd', '/../other', '/etc/passwd', '/tmp', 'other', '/inbound/a/b', '/Inbound', '/inbound/a\\b', '/inbound/a\u0000b', '/inbound/a\nb'])(
    '%j is denied',
    (input) => {
      expect(resolveVirtualPath(input).kind).toBe('denied');
    },
  );

  it('knows temporary upload names', () => {
    expect(['a.tmp', 'A.TMP', 'x.edi.part', 'x.filepart'].every(isTemporaryUploadName)).toBe(true);
    expect(['a.edi', 'tmp', 'a.tmp.edi', 'partial.x12'].some(isTemporaryUploadName)).toBe(false);
  });
});
