import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import {
  mappingCompileError,
  PartnerMappingRepository,
  PartnerProfileDto,
  PartnerRepository,
  SftpCredentialRepository,
  WebhookSecretRepository,
  parsePublicKeyLine,
} from '@dockbridge/partners';
import { OperatorRoleGuard } from '../auth/operator-role.guard';
import { BadInput } from '../http-error.filter';
import { PartnerImport } from '../partner-import';
import { Records } from './activity';
import { parse } from './admin.dto';
import { ApiErrors } from '../openapi/error.schemas';
import {
  AddedWebhookSecretSchema,
  ApiKeySchema,
  EnabledBodySchema,
  IssuedApiKeySchema,
  PartnerMappingSchema,
  PartnerProfileBodySchema,
  PartnerSchema,
  PartnerWithKeysSchema,
  SftpUserSchema,
  WebhookSecretSchema,
} from '../openapi/partner.schemas';

/** The path's partner id, as every route under /v1/admin/partners/{id} documents it. */
const PartnerIdParam = () => ApiParam({ name: 'id', description: "The partner's id (a slug)", example: 'acme-wms' });

class AddSecretDto {
  @ApiProperty({ minLength: 1, maxLength: 100, description: 'Tells secrets apart', example: '2026 rotation' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  label: string;
  /** Omit to have a Standard Webhooks secret (`whsec_…`) generated; it is shown in this answer only. */
  @ApiPropertyOptional({
    minLength: 16,
    maxLength: 500,
    description: 'Omit to have a Standard Webhooks secret (whsec_…) generated; shown in this answer only',
  })
  @IsOptional()
  @IsString()
  @MinLength(16)
  @MaxLength(500)
  secret?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'When it stops verifying; never when absent' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;
}

class ExpireSecretDto {
  /** When the secret stops verifying (the end of a rotation's overlap); now when absent. */
  @ApiPropertyOptional({
    format: 'date-time',
    description: "When the secret stops verifying (the end of a rotation's overlap); now when absent",
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  at?: string;
}

class PublishMappingDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 200_000,
    description: 'A JSONata expression turning a webhook body into {operations: [...]} (checked to compile)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200_000)
  expression: string;
}

class SftpUserDto {
  @ApiProperty({
    pattern: '^[a-z0-9][a-z0-9._-]{1,62}$',
    description: '2 to 63 lowercase letters, digits, dots, underscores or hyphens',
    example: 'acme',
  })
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9._-]{1,62}$/, {
    message: 'username must be 2 to 63 lowercase letters, digits, dots, underscores or hyphens',
  })
  username: string;
  /** At least 12 characters; stored as a scrypt hash. */
  @ApiPropertyOptional({ minLength: 12, description: 'At least 12 characters; stored as a scrypt hash' })
  @IsOptional()
  @IsString()
  password?: string;
  /** An OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
  @ApiPropertyOptional({ description: 'An OpenSSH public key line', example: 'ssh-ed25519 AAAA… acme' })
  @IsOptional()
  @IsString()
  publicKey?: string;
}

class IssueKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100, description: 'Tells keys apart', example: 'production' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  label: string;
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'When it stops authenticating (in the future); never when absent',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;
}

/** Partner profiles and their API keys. A new key is shown once, in the answer that creates it. */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors([401, 'Missing or wrong admin token'], [403, "The token's role does not allow this"])
@Controller('v1/admin/partners')
@UseGuards(OperatorRoleGuard)
export class AdminPartnersController {
  constructor(
    private readonly partners: PartnerRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly mappings: PartnerMappingRepository,
    private readonly sftp: SftpCredentialRepository,
    private readonly partnerImport: PartnerImport,
  ) {}

  /** Every partner with `source` (who owns it: 'file' or 'api'), `file` and `conflict` (a file the last start ignored). */
  @Get()
  @ApiOperation({ summary: 'Every partner, by id' })
  @ApiOkResponse({ type: [PartnerSchema] })
  list() {
    return this.partners.list();
  }

  @Get(':id')
  @PartnerIdParam()
  @ApiOperation({ summary: 'A partner profile with its API keys (never the keys themselves)' })
  @ApiOkResponse({ type: PartnerWithKeysSchema })
  @ApiErrors([404, 'No such partner'])
  async get(@Param('id') id: string) {
    const partner = await this.partners.findById(id);
    if (!partner) {
      throw new NotFoundException(`partner ${id} does not exist`);
    }
    return { ...partner, apiKeys: await this.partners.listApiKeys(id) };
  }

  @Put(':id')
  @PartnerIdParam()
  @ApiOperation({ summary: 'Create or replace a partner profile (409 when its file owns it: adopt it first)' })
  @ApiBody({ type: PartnerProfileBodySchema })
  @ApiOkResponse({ type: PartnerSchema, description: 'The profile as stored' })
  @ApiErrors(
    [400, 'Invalid profile; `details` names each field (unknown fields included)'],
    [409, 'A partner file owns it: edit the file, or adopt it first'],
  )
  @Records('partner.save', ({ params }) => ({
    target: `partner:${params.id}`,
    summary: `saved the profile of ${params.id}`,
  }))
  async put(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(PartnerProfileDto, { ...(body as object), id }, 'partner profile');
    return this.partners.upsertFromApi(dto);
  }

  @Post(':id/adopt')
  @PartnerIdParam()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Take a file-owned partner over: source becomes api, its file is ignored (reported as a conflict at each start)',
  })
  @ApiOkResponse({ type: PartnerSchema, description: 'The partner, now source api' })
  @ApiErrors([404, 'No such partner'])
  @Records('partner.adopt', ({ params }) => ({
    target: `partner:${params.id}`,
    summary: `took ${params.id} over from its partner file`,
  }))
  async adopt(@Param('id') id: string) {
    return this.partners.adopt(id);
  }

  @Post(':id/release')
  @PartnerIdParam()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Give an API-owned partner back to its file: the file is applied now (profile, mapping, credentials)',
  })
  @ApiOkResponse({ type: PartnerSchema, description: 'The partner as its file defines it' })
  @ApiErrors([404, 'No such partner'], [409, 'No partner file defines it'])
  @Records('partner.release', ({ params }) => ({
    target: `partner:${params.id}`,
    summary: `gave ${params.id} back to its partner file`,
  }))
  async release(@Param('id') id: string) {
    const released = await this.partnerImport.release(id);
    if (!released) {
      throw new NotFoundException(`partner ${id} does not exist`);
    }
    return released;
  }

  @Post(':id/api-keys')
  @PartnerIdParam()
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue an API key; the key is in this answer only' })
  @ApiBody({ type: IssueKeyDto })
  @ApiResponse({ status: 201, type: IssuedApiKeySchema })
  @ApiErrors([400, 'Invalid label, or an expiry that is not in the future'], [404, 'No such partner'])
  @Records('api-key.issue', ({ params, result }) => ({
    target: `partner:${params.id}`,
    summary: `issued API key dbk_${result.record.keyPrefix}… (${result.record.label})`,
  }))
  async issueKey(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(IssueKeyDto, body, 'API key request');
    try {
      return await this.partners.issueApiKey(id, {
        label: dto.label,
        expiresAt: dto.expiresAt ? new Date(dto.expiresAt) : null,
      });
    } catch (error) {
      // An expiry in the past (the repository's RangeError) is the request's fault.
      if (error instanceof RangeError) {
        throw new BadInput('Invalid API key request', [error.message]);
      }
      throw error;
    }
  }

  @Delete(':id/api-keys/:keyId')
  @PartnerIdParam()
  @ApiOperation({ summary: 'Revoke an API key' })
  @ApiParam({ name: 'keyId', format: 'uuid', description: "The key's id" })
  @ApiOkResponse({ type: ApiKeySchema, description: 'The key, revoked (revoking twice is harmless)' })
  @ApiErrors([404, 'No such key of this partner'])
  @Records('api-key.revoke', ({ params, result }) => ({
    target: `partner:${params.id}`,
    summary: `revoked API key ${result.keyPrefix ? `dbk_${result.keyPrefix}…` : result.id} (${result.label})`,
  }))
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string) {
    return this.partners.revokeApiKey(id, keyId);
  }

  @Post(':id/webhook-secrets')
  @PartnerIdParam()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a webhook secret (rotation: add the new one, then expire the old one at the end of the overlap)',
  })
  @ApiBody({ type: AddSecretDto })
  @ApiResponse({ status: 201, type: AddedWebhookSecretSchema })
  @ApiErrors([400, 'Invalid label, secret or expiry'], [404, 'No such partner'])
  @Records('webhook-secret.add', ({ params, result }) => ({
    target: `partner:${params.id}`,
    summary: `added webhook secret ${result.record.fingerprint} (${result.record.label})`,
  }))
  async addSecret(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(AddSecretDto, body, 'webhook secret');
    await this.existing(id);
    return this.secrets.add(id, {
      label: dto.label,
      secret: dto.secret,
      expiresAt: dto.expiresAt ? new Date(dto.expiresAt) : null,
    });
  }

  @Get(':id/webhook-secrets')
  @PartnerIdParam()
  @ApiOperation({ summary: "A partner's webhook secrets, by fingerprint (never the secrets)" })
  @ApiOkResponse({ type: [WebhookSecretSchema] })
  @ApiErrors([404, 'No such partner'])
  async listSecrets(@Param('id') id: string) {
    await this.existing(id);
    return this.secrets.list(id);
  }

  @Post(':id/webhook-secrets/:secretId/expire')
  @PartnerIdParam()
  @HttpCode(200)
  @ApiOperation({ summary: 'Set when a webhook secret stops verifying (the end of a rotation)' })
  @ApiParam({ name: 'secretId', format: 'uuid', description: "The secret's id" })
  @ApiBody({ type: ExpireSecretDto, required: false })
  @ApiOkResponse({ type: WebhookSecretSchema, description: 'The secret with its expiry' })
  @ApiErrors([400, 'Invalid secretId or time'], [404, 'No such partner or secret'])
  @Records('webhook-secret.expire', ({ params, result }) => ({
    target: `partner:${params.id}`,
    summary: `set webhook secret ${result.fingerprint} to expire at ${new Date(result.expiresAt).toISOString()}`,
  }))
  async expireSecret(
    @Param('id') id: string,
    @Param('secretId', new ParseUUIDPipe()) secretId: string,
    @Body() body: unknown,
  ) {
    const dto = parse(ExpireSecretDto, body, 'expiry');
    await this.existing(id);
    if (!(await this.secrets.expire(id, secretId, dto.at ? new Date(dto.at) : new Date()))) {
      throw new NotFoundException(`secret ${secretId} of partner ${id} does not exist`);
    }
    return (await this.secrets.list(id)).find((s) => s.id === secretId);
  }

  @Put(':id/mapping')
  @PartnerIdParam()
  @ApiOperation({
    summary:
      "Publish a new version of the partner's JSONata webhook mapping (checked to compile; 409 when its file owns the partner)",
  })
  @ApiBody({ type: PublishMappingDto })
  @ApiOkResponse({ type: PartnerMappingSchema, description: 'The new version' })
  @ApiErrors(
    [400, 'The expression is missing or does not compile'],
    [404, 'No such partner'],
    [409, 'A partner file owns the partner (and its mapping)'],
  )
  @Records('mapping.publish', ({ params, result }) => ({
    target: `partner:${params.id}`,
    summary: `published mapping version ${result.version}`,
  }))
  async publishMapping(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(PublishMappingDto, body, 'mapping');
    await this.existing(id);
    const invalid = mappingCompileError(dto.expression);
    if (invalid) {
      throw new BadInput('Invalid mapping', [`expression: ${invalid}`]);
    }
    return this.mappings.publish(id, dto.expression, { owner: 'api' });
  }

  @Get(':id/mapping/versions')
  @PartnerIdParam()
  @ApiOperation({ summary: "Every version of the partner's webhook mapping" })
  @ApiOkResponse({ type: [PartnerMappingSchema] })
  @ApiErrors([404, 'No such partner'])
  async mappingVersions(@Param('id') id: string) {
    await this.existing(id);
    return this.mappings.list(id);
  }

  private async existing(id: string) {
    const partner = await this.partners.findById(id);
    if (!partner) {
      throw new NotFoundException(`partner ${id} does not exist`);
    }
    return partner;
  }

  @Post(':id/sftp-users')
  @PartnerIdParam()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Give a partner an SFTP user (password and/or public key); it sees only its inbound/ and outbound/',
  })
  @ApiBody({ type: SftpUserDto })
  @ApiResponse({ status: 201, type: SftpUserSchema })
  @ApiErrors([400, 'Invalid username, password or public key; or neither given'], [404, 'No such partner'])
  @Records('sftp-user.set', ({ params, body, result }) => ({
    target: `partner:${params.id}`,
    summary: `set SFTP user ${result.username}: ${[(body as { password?: unknown }).password ? 'password' : '', result.publicKeyFingerprint ? `public key ${result.publicKeyFingerprint}` : ''].filter(Boolean).join(' and ')}`,
  }))
  async addSftpUser(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(SftpUserDto, body, 'SFTP user');
    if (!dto.password && !dto.publicKey) {
      throw new BadInput('Invalid SFTP user', ['password or publicKey is required']);
    }
    // Check the key before writing anything, so a bad key never leaves a changed password behind.
    const key = dto.publicKey ? parsePublicKeyLine(dto.publicKey) : undefined;
    if (key instanceof Error) {
      throw new BadInput('Invalid SFTP user', [`publicKey: ${key.message}`]);
    }
    await this.existing(id);
    let summary = dto.password ? await this.sftp.setPassword(id, dto.username, dto.password) : undefined;
    if (dto.publicKey) {
      summary = await this.sftp.addPublicKey(id, dto.username, dto.publicKey);
    }
    return summary;
  }

  @Get(':id/sftp-users')
  @PartnerIdParam()
  @ApiOperation({ summary: "A partner's SFTP users (never their passwords)" })
  @ApiOkResponse({ type: [SftpUserSchema] })
  @ApiErrors([404, 'No such partner'])
  async listSftpUsers(@Param('id') id: string) {
    await this.existing(id);
    return this.sftp.list(id);
  }

  @Delete(':id/sftp-users/:username')
  @PartnerIdParam()
  @ApiOperation({ summary: 'Revoke an SFTP user (revoking twice is harmless)' })
  @ApiParam({ name: 'username', description: 'The SFTP username' })
  @ApiOkResponse({ type: SftpUserSchema, description: 'The user, revoked' })
  @ApiErrors([404, 'No such SFTP user of this partner'])
  @Records('sftp-user.revoke', ({ params }) => ({
    target: `partner:${params.id}`,
    summary: `revoked SFTP user ${params.username}`,
  }))
  async revokeSftpUser(@Param('id') id: string, @Param('username') username: string) {
    return this.sftp.revoke(id, username);
  }

  @Post(':id/enabled')
  @PartnerIdParam()
  @HttpCode(200)
  @ApiOperation({ summary: "Enable or disable a partner (a disabled partner's traffic is refused)" })
  @ApiBody({ type: EnabledBodySchema })
  @ApiOkResponse({ type: PartnerSchema })
  @ApiErrors([400, 'enabled is not true or false'], [404, 'No such partner'])
  @Records('partner.enable', ({ params, result }) => ({
    target: `partner:${params.id}`,
    summary: result.enabled ? `enabled ${params.id}` : `disabled ${params.id}`,
  }))
  async setEnabled(@Param('id') id: string, @Body() body: { enabled?: unknown }) {
    if (typeof body?.enabled !== 'boolean') {
      throw new BadInput('Invalid request', ['enabled must be true or false']);
    }
    return this.partners.setEnabled(id, body.enabled);
  }
}
