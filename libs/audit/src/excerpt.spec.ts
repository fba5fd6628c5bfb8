import { excerpt } from './excerpt';

describe('excerpt', () => {
  it('keeps short text as it is and maps null and undefined to null', () => {
    expect(excerpt('502 Bad Gateway')).toBe('502 Bad Gateway');
    expect(excerpt(null)).toBeNull();
    expect(excerpt(undefined)).toBeNull();
  });

  it('cuts long text to 2,000 characters, the last an ellipsis', () => {
    const cut = excerpt('x'.repeat(5000))!;
    expect(cut).toHaveLength(2000);
    expect(cut.endsWith('…')).toBe(true);
    expect(excerpt('y'.repeat(2000))).toBe('y'.repeat(2000));
  });

  it('drops NUL characters, which Postgres text refuses', () => {
    expect(excerpt('a\u0000b')).toBe('ab');
  });
});
