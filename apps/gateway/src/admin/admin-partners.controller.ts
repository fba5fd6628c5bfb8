import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ApiKeyNotFoundError, PartnerNotFoundError, PartnerProfileDto, PartnerRepository } from '@dockbridge/partners';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { BadInput } from '../http-error.filter';
import { parse } from './admin.dto';

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
  constructor(private readonly partners: PartnerRepository) {}

  @Get()
  list() {
    return this.partners.list();
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    const partner = await this.partners.findById(id);
    if (!partner) throw new NotFoundException(`partner ${id} does not exist`);
    return { ...partner, apiKeys: await this.partners.listApiKeys(id) };
  }

  @Put(':id')
  @ApiOperation({ summary: 'Create or replace a partner profile' })
  async put(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(PartnerProfileDto, { ...(body as object), id }, 'partner profile');
    return this.partners.upsert(dto, 'api');
  }

  @Post(':id/api-keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue an API key; the key is in this answer only' })
  async issueKey(@Param('id') id: string, @Body() body: unknown) {
    const dto = parse(IssueKeyDto, body, 'API key request');
    try {
      const issued = await this.partners.issueApiKey(id, { label: dto.label, expiresAt: dto.expiresAt ? new Date(dto.expiresAt) : null });
      return issued;
    } catch (error) {
      if (error instanceof PartnerNotFoundError) throw new NotFoundException(error.message);
      throw error;
    }
  }

  @Delete(':id/api-keys/:keyId')
  @ApiOperation({ summary: 'Revoke an API key' })
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string) {
    try {
      return await this.partners.revokeApiKey(id, keyId);
    } catch (error) {
      if (error instanceof PartnerNotFoundError || error instanceof ApiKeyNotFoundError) throw new NotFoundException(error.message);
      throw error;
    }
  }

  @Post(':id/enabled')
  @HttpCode(200)
  async setEnabled(@Param('id') id: string, @Body() body: { enabled?: unknown }) {
    if (typeof body?.enabled !== 'boolean') throw new BadInput('Invalid request', ['enabled must be true or false']);
    try {
      return await this.partners.setEnabled(id, body.enabled);
    } catch (error) {
      if (error instanceof PartnerNotFoundError) throw new NotFoundException(error.message);
      throw error;
    }
  }
}
