import {
  CallHandler,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, lastValueFrom, Observable } from 'rxjs';
import { OperatorAccess } from '@dockbridge/pipeline';
import type { OperatorRequest } from '../auth/operator-role.guard';

/** What a successful admin call is handed to describe itself: never copy the body whole (it may hold a secret). */
export interface RecordedCall {
  params: Record<string, string>;
  body: unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route's own answer
  result: any;
}

interface ActivitySpec {
  action: string;
  /** null: this call changed nothing after all (a dry run). */
  describe: (call: RecordedCall) => { target: string; summary: string } | null;
}

const ACTIVITY = 'dockbridge:activity';
const CHANGES_NOTHING = 'dockbridge:changes-nothing';

/** The route changes something: once it succeeds, who did what to what goes into the activity log. */
export const Records = (action: string, describe: ActivitySpec['describe']) =>
  applyDecorators(SetMetadata(ACTIVITY, { action, describe } satisfies ActivitySpec), UseInterceptors(ActivityLog));

/** A POST that only reads or computes (a preview, a dry run of a mapping): nothing for the log. */
export const ChangesNothing = () => SetMetadata(CHANGES_NOTHING, true);

/** Whether a handler says what it changes: every admin route but a read must (activity.spec.ts checks). */
export const declaresActivity = (handler: object): boolean =>
  Reflect.getMetadata(ACTIVITY, handler) !== undefined || Reflect.getMetadata(CHANGES_NOTHING, handler) === true;

/**
 * Appends each successful change to the activity log, as the operator who made it. The change has
 * committed by then; if the log cannot be written the answer still goes out, with the failure logged.
 */
@Injectable()
export class ActivityLog implements NestInterceptor {
  private readonly logger = new Logger('ActivityLog');

  constructor(
    private readonly reflector: Reflector,
    private readonly operators: OperatorAccess,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<ActivitySpec | undefined>(ACTIVITY, context.getHandler());
    const request = context
      .switchToHttp()
      .getRequest<OperatorRequest & { params: Record<string, string>; body: unknown }>();
    return from(
      (async () => {
        const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
        const entry =
          spec && request.operator ? spec.describe({ params: request.params, body: request.body, result }) : null;
        if (entry) {
          const { target, summary } = entry;
          await this.operators
            .record(request.operator!, spec!.action, target, summary)
            .catch((error: Error) =>
              this.logger.error(`activity ${spec!.action} on ${target} not recorded: ${error.message}`),
            );
        }
        return result;
      })(),
    );
  }
}
