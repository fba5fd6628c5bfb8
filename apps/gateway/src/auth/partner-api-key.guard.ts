import { CanActivate, createParamDecorator, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { PartnerProfile, PartnerRepository } from '@dockbridge/partners';

type PartnerRequest = { headers: Record<string, string | string[] | undefined>; partner?: PartnerProfile };

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The partner whose API key the headers carry (`X-API-Key: dbk_...` or `Authorization: Bearer dbk_...`); 401 names what is wrong, never the key. */
export async function partnerOf(
  headers: PartnerRequest['headers'],
  partners: PartnerRepository,
): Promise<PartnerProfile> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(first(headers.authorization) ?? '')?.[1];
  const key = first(headers['x-api-key']) ?? bearer;
  if (!key) {
    throw new UnauthorizedException('missing API key: send X-API-Key: <key> or Authorization: Bearer <key>');
  }
  const partner = await partners.authenticate(key);
  if (!partner) {
    throw new UnauthorizedException('invalid, revoked or expired API key, or the partner is disabled');
  }
  return partner;
}

/** The partner API's guard: the partner `authenticateFirst` found from the headers, or found here. */
@Injectable()
export class PartnerApiKeyGuard implements CanActivate {
  constructor(private readonly partners: PartnerRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<PartnerRequest>();
    request.partner ??= await partnerOf(request.headers, this.partners);
    return true;
  }
}

export const CurrentPartner = createParamDecorator((_data: unknown, context: ExecutionContext): PartnerProfile => {
  const partner = context.switchToHttp().getRequest<PartnerRequest>().partner;
  if (!partner) {
    throw new Error('CurrentPartner used on a route without PartnerApiKeyGuard');
  }
  return partner;
});
