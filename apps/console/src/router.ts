import { useEffect, useState } from 'react';

/** The page and its query, from the location's hash (`#/messages/<id>?status=failed`): no server routes needed. */
export interface Route {
  parts: string[];
  query: URLSearchParams;
}

const read = (): Route => {
  const [path, search = ''] = window.location.hash.replace(/^#\/?/, '').split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
};

export function useRoute(): Route {
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export const href = (path: string, query?: Record<string, string | undefined>): string => {
  const search = new URLSearchParams(
    Object.entries(query ?? {}).filter((entry): entry is [string, string] => !!entry[1]),
  ).toString();
  return `#${path}${search ? `?${search}` : ''}`;
};

export const navigate = (path: string, query?: Record<string, string | undefined>): void => {
  window.location.hash = href(path, query);
};
