import { Injectable } from '@nestjs/common';
import { translateEdiEvents, type EdiTranslationInput } from '@dockbridge/mapping';
import {
  PartnerMappingRepository,
  PartnerNotFoundError,
  PartnerRepository,
  type PartnerProfile,
} from '@dockbridge/partners';
import { DomainError } from '@dockbridge/audit';
import { directoryOf, ediSettingsOf, MappingError, runMapping } from '../translate/translators';
import { ediPreviewLine, EdiPreviewBuilder, EdiPreviewLine, EdiPreviewView, SetPage } from './views';

/** A dry run that needs a partner setting the partner lacks (settings.edi, a published mapping). */
export class PartnerNotSetUpError extends DomainError {
  readonly kind = 'invalid';
  constructor(summary: string, detail: string) {
    super(detail);
    this.summary = summary;
    this.details = [detail];
  }
}

/** What a mapping makes of a sample: its operations, or the error with its position in the expression. */
export type MappingTrial =
  { operations: unknown[]; mappingVersion: number | null } | { error: MappingError; mappingVersion: number | null };

/**
 * Dry runs: what a file or a webhook body would become for a partner, with nothing recorded or
 * delivered. The partner API previews as the calling partner; operators preview as any partner.
 */
@Injectable()
export class DryRuns {
  constructor(
    private readonly partners: PartnerRepository,
    private readonly mappings: PartnerMappingRepository,
  ) {}

  /** The documents and diagnostics an X12 file would produce, as `partner` would be told; one page of its sets. */
  async previewEdi(partner: PartnerProfile | string, raw: string, page: SetPage): Promise<EdiPreviewView> {
    const preview = new EdiPreviewBuilder(page);
    for await (const event of translateEdiEvents(await this.ediInput(partner, raw))) {
      preview.add(event);
    }
    return preview.result();
  }

  /**
   * The whole preview as lines (NDJSON), each set as it is mapped and the summary last: nothing of
   * the file is held but the set being read. The partner is checked before the first line.
   */
  async previewEdiLines(partner: PartnerProfile | string, raw: string): Promise<AsyncIterable<EdiPreviewLine>> {
    const events = translateEdiEvents(await this.ediInput(partner, raw));
    return (async function* () {
      const counted = new EdiPreviewBuilder({ after: 0, limit: 0 });
      for await (const event of events) {
        counted.add(event);
        yield ediPreviewLine(event);
      }
      yield { type: 'summary' as const, ...counted.result().summary };
    })();
  }

  private async ediInput(partner: PartnerProfile | string, raw: string): Promise<EdiTranslationInput> {
    const profile = typeof partner === 'string' ? await this.partner(partner) : partner;
    const settings = ediSettingsOf(profile);
    if (!settings) {
      throw new PartnerNotSetUpError(
        'No EDI settings',
        `partner ${profile.id} has no settings.edi (senderIds, coreName)`,
      );
    }
    let control = 0;
    return {
      raw,
      settings,
      senderIds: profile.settings.edi!.senderIds,
      directory: directoryOf(profile),
      nextControlNumber: async () => ++control,
      now: new Date(),
    };
  }

  /** Runs `expression` (the published mapping when absent) on a sample webhook body. */
  async tryMapping(partnerId: string, sample: unknown, expression?: string): Promise<MappingTrial> {
    await this.partner(partnerId);
    let version: number | null = null;
    if (expression === undefined) {
      const current = await this.mappings.current(partnerId);
      if (!current) {
        throw new PartnerNotSetUpError(
          'No mapping',
          `partner ${partnerId} has no published mapping: send an expression`,
        );
      }
      expression = current.expression;
      version = current.version;
    }
    const run = await runMapping(expression, sample);
    return 'error' in run
      ? { error: run.error, mappingVersion: version }
      : { operations: run.operations, mappingVersion: version };
  }

  private async partner(id: string): Promise<PartnerProfile> {
    const partner = await this.partners.findById(id);
    if (!partner) {
      throw new PartnerNotFoundError(id);
    }
    return partner;
  }
}
