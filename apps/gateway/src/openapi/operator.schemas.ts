import { ApiProperty } from '@nestjs/swagger';
import { OPERATOR_ROLES, type OperatorActivity, type OperatorRole, type OperatorToken } from '@dockbridge/audit';
import type { AsJson } from '@dockbridge/pipeline';

/* Schemas of operator accounts and the activity log. Each implements the type it documents. */

const DATE = { type: String, format: 'date-time' } as const;
const NULLABLE_DATE = { ...DATE, nullable: true } as const;

export class OperatorMeSchema {
  @ApiProperty({ description: "The token's name (the bootstrap ADMIN_TOKEN is `admin`)", example: 'dana' })
  name!: string;
  @ApiProperty({ enum: OPERATOR_ROLES, description: 'viewer: read; operator: also replay and preview; admin: all' })
  role!: OperatorRole;
}

export class OperatorTokenSchema implements AsJson<OperatorToken> {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'dana' }) name!: string;
  @ApiProperty({ enum: OPERATOR_ROLES }) role!: OperatorRole;
  @ApiProperty({ description: 'The first characters of the token, to tell tokens apart', example: 'dbo_Xk3f9a…' })
  hint!: string;
  @ApiProperty({ description: 'Who issued it', example: 'operator:admin' }) createdBy!: string;
  @ApiProperty(DATE) createdAt!: string;
  @ApiProperty({ ...NULLABLE_DATE, description: 'Refused from then on; null: no expiry' }) expiresAt!: string | null;
  @ApiProperty(NULLABLE_DATE) revokedAt!: string | null;
  @ApiProperty({ ...NULLABLE_DATE, description: 'Last call made with it (to the minute)' }) lastUsedAt!: string | null;
}

export class IssuedOperatorTokenSchema extends OperatorTokenSchema {
  @ApiProperty({ description: 'The token: shown in this answer only', example: 'dbo_…' }) token!: string;
}

export class OperatorActivitySchema implements AsJson<OperatorActivity> {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty(DATE) at!: string;
  @ApiProperty({ example: 'operator:dana' }) actor!: string;
  @ApiProperty({ enum: OPERATOR_ROLES }) role!: OperatorRole;
  @ApiProperty({ example: 'partner.update' }) action!: string;
  @ApiProperty({ example: 'partner:acme-wms' }) target!: string;
  @ApiProperty({ example: 'replaced the profile of acme-wms' }) summary!: string;
}

export class ActivityPageSchema {
  @ApiProperty({ type: [OperatorActivitySchema] }) items!: OperatorActivitySchema[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}
