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
    [
      '/inbound/Lieferschein-Müller_東京.edi',
      {
        kind: 'file',
        path: '/inbound/Lieferschein-Müller_東京.edi',
        folder: 'inbound',
        name: 'Lieferschein-Müller_東京.edi',
      },
    ],
  ])('%j resolves inside the tree', (input, expected) => {
    expect(resolveVirtualPath(input)).toEqual(expected);
  });

  it.each([
    '/inbound/../../etc/passwd',
    '/../other',
    '/etc/passwd',
    '/tmp',
    'other',
    '/inbound/a/b',
    '/Inbound',
    '/inbound/a\\b',
    '/inbound/a\u0000b',
    '/inbound/a\nb',
    // A C1 control (a terminal's CSI), a right-to-left override ("997_gpj.exe" read backwards), a zero-width space.
    '/inbound/a\u009bb',
    '/inbound/997_\u202egpj.x12',
    '/inbound/a\u200bb',
  ])('%j is denied', (input) => {
    expect(resolveVirtualPath(input).kind).toBe('denied');
  });

  it.each([
    ['/etc/passwd', 'outside your folders (inbound/ and outbound/, no subfolders): "/etc/passwd"'],
    ['/inbound/a/b', 'outside your folders (inbound/ and outbound/, no subfolders): "/inbound/a/b"'],
    ['/inbound/a\u0000b', 'path holds a NUL character: "/inbound/a\\u0000b"'],
    [
      '/inbound/a\u0007b',
      'file name holds a control character, an invisible or reordering one, or a backslash: "/inbound/a\\u0007b"',
    ],
    [`/inbound/${'x'.repeat(256)}`, `file name longer than 255 characters: "/inbound/${'x'.repeat(191)}"`],
    [`/inbound/${'x'.repeat(5000)}`, `path longer than 4096 characters: "/inbound/${'x'.repeat(191)}"`],
  ])('%j is denied, saying why', (input, reason) => {
    expect(resolveVirtualPath(input)).toMatchObject({ kind: 'denied', reason });
  });

  it('knows temporary upload names', () => {
    expect(['a.tmp', 'A.TMP', 'x.edi.part', 'x.filepart'].every(isTemporaryUploadName)).toBe(true);
    expect(['a.edi', 'tmp', 'a.tmp.edi', 'partial.x12'].some(isTemporaryUploadName)).toBe(false);
  });
});
