import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import { SandboxState } from '../state/sandbox-state';
import { Permission } from '../state/seed';
import { PlatformError } from './platform-error';

/** The organisations and permissions a bearer token acts with. */
export class Caller {
  constructor(
    readonly organisationIds: ReadonlySet<string>,
    readonly permissions: ReadonlySet<Permission>,
  ) {}

  actsFor(organisationId: string): boolean {
    return this.organisationIds.has(organisationId);
  }

  /** 403 unless the token acts for `organisationId` with `permission`. */
  require(organisationId: string, permission: Permission): void {
    if (!this.actsFor(organisationId)) {
      throw PlatformError.forbidden(`the token does not act for organisation ${organisationId}`);
    }
    if (!this.permissions.has(permission)) {
      throw PlatformError.forbidden(`the token lacks the ${permission} permission`);
    }
  }
}

export function callerFor(state: SandboxState, authorization: string | undefined): Caller {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) {
    throw PlatformError.unauthenticated('missing bearer token: send Authorization: Bearer <token>');
  }
  const token = state.tokens.get(match[1]);
  if (!token) {
    throw PlatformError.unauthenticated('invalid token');
  }
  if (token.expiresAt && Date.parse(token.expiresAt) <= Date.now()) {
    throw PlatformError.unauthenticated('expired token');
  }
  return new Caller(new Set(token.organisationIds), new Set(token.permissions));
}

type AuthenticatedRequest = { headers: Record<string, string | string[] | undefined>; caller?: Caller };

/** 401 for a missing, invalid or expired token; the caller is then available through @CurrentCaller(). */
@Injectable()
export class TokenGuard implements CanActivate {
  constructor(private readonly state: SandboxState) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    request.caller = callerFor(this.state, Array.isArray(header) ? header[0] : header);
    return true;
  }
}

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) {
    throw new Error('CurrentCaller used on a route without TokenGuard');
  }
  return caller;
});
