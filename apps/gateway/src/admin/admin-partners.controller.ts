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
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
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
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { BadInput } from '../http-error.filter';
import { PartnerImport } from '../partner-import';
import { parse } from './admin.dto';

class AddSecretDto {
  @IsString() @MinLength(1) @MaxLength(100) label: string;
  /** Omit to have a Standard Webhooks secret (`whsec_…`) generated; it is shown in this answer only. */
  @IsOptional() @IsString() @MinLength(16) @MaxLength(500) secret?: string;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string;
}

class ExpireSecretDto {
  /** When the secret stops verifying (the end of a rotation's overlap); now when absent. */
  @IsOptional() @IsISO8601({ strict: true }) at?: string;
}

class PublishMappingDto {
  @IsString() @MinLength(1) @MaxLength(200_000) expression: string;
}

class SftpUserDto {
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9._-]{1,62}$/, {
    message: 'username must be 2 to 63 lowercase letters, digits, dots, underscores or hyphens',
  })
  username: string;
  /** At least 12 characters; stored as a scrypt hash. */
  @IsOptional() @IsString() password?: string;
  /** An OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
  @IsOptional() @IsString() publicKey?: string;
}

class IssueKeyDto {
  @IsString() @MinLength(1) @MaxLength(100) label: string;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string;
}

/** Partner profiles and their API keys. A new key is shown once, in the answer that creates it. */
@ApiTags('admin')
@ApiBearerAuth()
@Controller('v1/admin/partners')
@UseGuards(AdminTokenGuard)
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
  list() {
    return this.partners.list();
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    const partner = await this.partners.findById(id);
    if (!partner) {
      throw new NotFoundException(`partner ${id} does not exist`);
    }
    return { ...partner, apiKeys: await this.partners.listApiKeys(id) };
  }

  @Put(':id')
  @ApiOperation({ summary: 'Create or replace a partner profile (409 when its file owns it: adopt it first)' })
  async put(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(PartnerProfileDto, { ...(body as object), id }, 'partner profile');
    return this.partners.upsertFromApi(dto);
  }

  @Post(':id/adopt')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Take a file-owned partner over: source becomes api, its file is ignored (reported as a conflict at each start)',
  })
  async adopt(@Param('id') id: string) {
    return this.partners.adopt(id);
  }

  @Post(':id/release')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Give an API-owned partner back to its file: the file is applied now (profile, mapping, credentials)',
  })
  async release(@Param('id') id: string) {
    const released = await this.partnerImport.release(id);
    if (!released) {
      throw new NotFoundException(`partner ${id} does not exist`);
    }
    return released;
  }

  @Post(':id/api-keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue an API key; the key is in this answer only' })
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
  @ApiOperation({ summary: 'Revoke an API key' })
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string) {
    return this.partners.revokeApiKey(id, keyId);
  }

  @Post(':id/webhook-secrets')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a webhook secret (rotation: add the new one, then expire the old one at the end of the overlap)',
  })
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
  async listSecrets(@Param('id') id: string) {
    await this.existing(id);
    return this.secrets.list(id);
  }

  @Post(':id/webhook-secrets/:secretId/expire')
  @HttpCode(200)
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
  @ApiOperation({
    summary:
      "Publish a new version of the partner's JSONata webhook mapping (checked to compile; 409 when its file owns the partner)",
  })
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
  @HttpCode(201)
  @ApiOperation({
    summary: 'Give a partner an SFTP user (password and/or public key); it sees only its inbound/ and outbound/',
  })
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
  async listSftpUsers(@Param('id') id: string) {
    await this.existing(id);
    return this.sftp.list(id);
  }

  @Delete(':id/sftp-users/:username')
  async revokeSftpUser(@Param('id') id: string, @Param('username') username: string) {
    return this.sftp.revoke(id, username);
  }

  @Post(':id/enabled')
  @HttpCode(200)
  async setEnabled(@Param('id') id: string, @Body() body: { enabled?: unknown }) {
    if (typeof body?.enabled !== 'boolean') {
      throw new BadInput('Invalid request', ['enabled must be true or false']);
    }
    return this.partners.setEnabled(id, body.enabled);
  }
}
