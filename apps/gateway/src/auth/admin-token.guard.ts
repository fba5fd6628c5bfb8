import { createHash, timingSafeEqual } from 'node:crypto';
import {
  CanActivate,
  ExecutionContext,
  Injectable,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { AppConfig } from '@dockbridge/config';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Checks a presented token (admin, metrics) against the configured one, in constant time (digests of equal length). */
export class BearerToken {
  private readonly expected?: Buffer;

  constructor(configured: string | undefined) {
    this.expected = configured ? digest(configured) : undefined;
  }

  get enabled(): boolean {
    return this.expected !== undefined;
  }

  matches(presented: string | undefined): boolean {
    return !!this.expected && !!presented && timingSafeEqual(digest(presented), this.expected);
  }
}

/** The admin API: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. Off (503) until a token is configured. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly token: BearerToken;

  constructor(config: AppConfig) {
    this.token = new BearerToken(config.gateway.adminToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.token.enabled) {
      throw new ServiceUnavailableException('the admin API is disabled: set ADMIN_TOKEN (gateway.adminToken)');
    }
    const header =
      context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers.authorization ?? '';
    if (!this.token.matches(/^Bearer\s+(\S+)$/i.exec(header)?.[1])) {
      throw new UnauthorizedException('missing or invalid admin token');
    }
    return true;
  }
}
