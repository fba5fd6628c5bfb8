import { PlatformError } from './platform-error';

/** An optional integer query parameter within bounds; 400 naming the parameter otherwise. */
export function intParam(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isInteger(value)) {
    throw PlatformError.badRequest('Invalid query parameter', [`${name} must be an integer`]);
  }
  if (value < min || value > max) {
    throw PlatformError.badRequest('Invalid query parameter', [`${name} must be between ${min} and ${max}`]);
  }
  return value;
}

export function boolParam(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false') {
    return false;
  }
  if (raw === 'true') {
    return true;
  }
  throw PlatformError.badRequest('Invalid query parameter', [`${name} must be true or false`]);
}

export interface ReferenceQuery {
  enableBaseOrgs?: string;
  selfCoreId?: string;
}

export function referenceOptions(query: ReferenceQuery) {
  return {
    enableBaseOrgs: boolParam('enableBaseOrgs', query.enableBaseOrgs),
    selfCoreId: query.selfCoreId || undefined,
  };
}
