import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable, ServiceUnavailableException, UnauthorizedException } from '@nestjs/common';
import { AppConfig } from '@dockbridge/config';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The admin API: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. Off (503) until a token is configured. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(config: AppConfig) {
    this.expected = config.gateway.adminToken ? digest(config.gateway.adminToken) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) throw new ServiceUnavailableException('the admin API is disabled: set ADMIN_TOKEN (gateway.adminToken)');
    const header = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers.authorization ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!token || !timingSafeEqual(digest(token), this.expected)) throw new UnauthorizedException('missing or invalid admin token');
    return true;
  }
}
