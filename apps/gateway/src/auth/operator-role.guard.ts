import {
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { OperatorIdentity, OperatorRole, roleAllows } from '@dockbridge/audit';

/** Set on the request by authenticateFirst, from the admin credential in its headers. */
export interface OperatorRequest {
  method: string;
  operator?: OperatorIdentity;
}

const REQUIRED_ROLE = 'dockbridge:required-role';

/**
 * The role an admin route needs when it is not the default: reads need `viewer`, every other
 * method `admin`, so a new write route is admin-only until someone decides otherwise.
 */
export const RequiresRole = (role: OperatorRole) => SetMetadata(REQUIRED_ROLE, role);

/** The operator making the call (the guard has checked it is there). */
export const CurrentOperator = createParamDecorator(
  (_data: unknown, context: ExecutionContext): OperatorIdentity =>
    context.switchToHttp().getRequest<OperatorRequest>().operator!,
);

/** The admin API: who is calling was found from the headers; this checks their role allows the route. */
@Injectable()
export class OperatorRoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<OperatorRequest>();
    const operator = request.operator;
    if (!operator) {
      throw new UnauthorizedException('missing or invalid admin token');
    }
    const needed =
      this.reflector.getAllAndOverride<OperatorRole | undefined>(REQUIRED_ROLE, [
        context.getHandler(),
        context.getClass(),
      ]) ?? (request.method === 'GET' || request.method === 'HEAD' ? 'viewer' : 'admin');
    if (!roleAllows(operator.role, needed)) {
      throw new ForbiddenException(`${operator.name} is a ${operator.role}: this needs the ${needed} role`);
    }
    return true;
  }
}
