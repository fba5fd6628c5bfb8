import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { OPERATOR_ROLES, type OperatorIdentity, type OperatorRole } from '@dockbridge/audit';
import { OperatorAccess } from '@dockbridge/pipeline';
import { CurrentOperator, OperatorRoleGuard, RequiresRole } from '../auth/operator-role.guard';
import { BadInput } from '../http-error.filter';
import { ApiErrors } from '../openapi/error.schemas';
import {
  ActivityPageSchema,
  IssuedOperatorTokenSchema,
  OperatorMeSchema,
  OperatorTokenSchema,
} from '../openapi/operator.schemas';
import { Records } from './activity';
import { parse } from './admin.dto';

class IssueOperatorTokenDto {
  @ApiProperty({ description: 'Who holds it: letters, digits, . _ @ -, up to 64', example: 'dana' })
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, {
    message: 'name must be 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit',
  })
  name!: string;
  @ApiProperty({ enum: OPERATOR_ROLES })
  @IsIn(OPERATOR_ROLES)
  role!: OperatorRole;
  @ApiPropertyOptional({ format: 'date-time', description: 'Refused from then on (ISO 8601, in the future)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;
}

class ActivityQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 200, description: 'Entries per page (default 50)' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
  @ApiPropertyOptional({ description: 'The nextCursor of the previous page' })
  @IsOptional()
  @IsUUID('all', { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;
  @ApiPropertyOptional({
    maxLength: 200,
    description: 'Only changes to this: partner:<id>, message:<id>, operator:<id>',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  target?: string;
}

/**
 * Operator accounts: who is calling, named tokens with a role (issued and revoked by an admin, the
 * token shown once), and the activity log of every change made through the admin API.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors([401, 'Missing or wrong admin token'], [403, "The token's role does not allow this"])
@Controller('v1/admin')
@UseGuards(OperatorRoleGuard)
export class AdminOperatorsController {
  constructor(private readonly operators: OperatorAccess) {}

  @Get('me')
  @ApiOperation({ summary: 'Who the presented token belongs to, and its role' })
  @ApiOkResponse({ type: OperatorMeSchema })
  me(@CurrentOperator() operator: OperatorIdentity): OperatorMeSchema {
    return { name: operator.name, role: operator.role };
  }

  @Get('operators')
  @ApiOperation({ summary: 'Every operator token, active first (never the tokens): admin only' })
  @ApiOkResponse({ type: [OperatorTokenSchema] })
  @RequiresRole('admin')
  list() {
    return this.operators.list();
  }

  @Post('operators')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue a named token with a role; the token is in this answer only' })
  @ApiBody({ type: IssueOperatorTokenDto })
  @ApiResponse({ status: 201, type: IssuedOperatorTokenSchema })
  @ApiErrors(
    [400, 'Invalid name or role, or an expiry not in the future'],
    [409, 'An active token has that name: revoke it first'],
  )
  @Records('operator.create', ({ result }) => ({
    target: `operator:${result.id}`,
    summary: `issued ${result.role} token ${result.hint} to ${result.name}${result.expiresAt ? `, until ${new Date(result.expiresAt).toISOString()}` : ''}`,
  }))
  async issue(@CurrentOperator() by: OperatorIdentity, @Body() body: unknown) {
    const dto = parse(IssueOperatorTokenDto, body, 'operator token');
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new BadInput('Invalid operator token', ['expiresAt must be in the future']);
    }
    const { token, operator } = await this.operators.issue(by, { name: dto.name, role: dto.role, expiresAt });
    return { ...operator, token };
  }

  @Delete('operators/:id')
  @ApiOperation({ summary: 'Revoke a token: refused from the next call (revoking twice keeps the first time)' })
  @ApiParam({ name: 'id', format: 'uuid', description: "The token's id" })
  @ApiOkResponse({ type: OperatorTokenSchema, description: 'The token, revoked' })
  @ApiErrors([404, 'No such token'])
  @Records('operator.revoke', ({ result }) => ({
    target: `operator:${result.id}`,
    summary: `revoked ${result.name}'s ${result.role} token ${result.hint}`,
  }))
  async revoke(@Param('id') id: string) {
    const revoked = await this.operators.revoke(id);
    if (!revoked) {
      throw new NotFoundException(`operator token ${id} does not exist`);
    }
    return revoked;
  }

  @Get('activity')
  @ApiQuery({ type: ActivityQueryDto })
  @ApiOperation({
    summary:
      'What operators changed through the admin API (replays, partners, keys, secrets, SFTP users, mappings, tokens), newest first, by whom',
  })
  @ApiOkResponse({ type: ActivityPageSchema })
  @ApiErrors([400, 'Invalid limit, cursor or target'])
  activity(@Query() query: Record<string, unknown>) {
    const dto = parse(ActivityQueryDto, query, 'activity query');
    return this.operators.activityPage({ limit: dto.limit ?? 50, cursor: dto.cursor, target: dto.target });
  }
}
