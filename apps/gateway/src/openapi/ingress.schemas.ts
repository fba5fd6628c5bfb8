import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OPERATION_KINDS } from '@dockbridge/audit';
import type { AsJson, EdiPreviewView } from '@dockbridge/pipeline';

/*
 * Schemas of the partner ingress: the canonical message a partner posts, and the EDI preview. The
 * preview's classes implement its view (libs/pipeline/src/admin/views.ts), so the compiler keeps them
 * in line; canonical operations are free-form here (their fields depend on the kind; checkCanonicalMessage
 * names every problem by path).
 */

const FREE_FORM = { type: 'object', additionalProperties: true } as const;

type Preview = AsJson<EdiPreviewView>;
type PreviewSummary = Preview['summary'];
type Interchange = Preview['interchanges'][number];
type PreviewSet = Preview['transactionSets'][number];
type Acknowledgment = Preview['acknowledgments'][number];

export class CanonicalOperationSchema {
  @ApiProperty({ enum: OPERATION_KINDS }) kind!: (typeof OPERATION_KINDS)[number];
  @ApiProperty({
    format: 'uuid',
    description: "The platform organisation it acts on: the partner's location or one its profile names",
  })
  organisationId!: string;
}

/** `POST /v1/messages`: the operations, checked whole (400 naming every problem by path; nothing recorded). */
export class CanonicalMessageSchema {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    items: { allOf: [{ $ref: '#/components/schemas/CanonicalOperationSchema' }, FREE_FORM] },
    description:
      'By kind: document.upsert {document, options?}; document.delete {documentId}; booking.create {booking | bookingEntityRef}; booking.status and booking.tasks {bookingId, ...}; vehicle.update {vehicleId, vehicle}',
    example: [
      {
        kind: 'document.upsert',
        organisationId: '<location uuid>',
        document: { id: 'PO-1', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
      },
    ],
  })
  operations!: object[];
}

export class EdiPreviewSummarySchema implements PreviewSummary {
  @ApiProperty() interchanges!: number;
  @ApiProperty({ description: 'Transaction sets in the whole file' }) sets!: number;
  @ApiProperty() accepted!: number;
  @ApiProperty() rejected!: number;
  @ApiProperty({ description: 'Documents the file would produce' }) documents!: number;
}

export class InterchangeOutcomeSchema implements Interchange {
  @ApiProperty({ description: 'ISA05/ISA06/ISA13: what duplicate detection keys on' }) key!: string;
  @ApiProperty({ description: 'ISA06' }) senderId!: string;
  @ApiProperty({ description: 'ISA13' }) control!: string;
  @ApiProperty({ description: 'The envelope or sender was refused: nothing of it is delivered' }) refused!: boolean;
  @ApiPropertyOptional({ description: 'A second copy of an interchange earlier in the file' }) duplicate?: boolean;
  @ApiPropertyOptional() reason?: string;
}

export class TransactionSetSchema implements PreviewSet {
  @ApiProperty({ description: 'The key of its interchange' }) interchangeKey!: string;
  @ApiProperty({ description: 'ST02' }) transactionControl!: string;
  @ApiProperty({ example: '850' }) setId!: string;
  @ApiPropertyOptional() documentId?: string;
  @ApiPropertyOptional({ ...FREE_FORM, description: 'The canonical operation it maps to (absent when rejected)' })
  operation?: PreviewSet['operation'];
  @ApiProperty({ description: 'Cannot be delivered (an error diagnostic says why)' }) rejected!: boolean;
  @ApiProperty({
    type: 'array',
    items: FREE_FORM,
    description: 'level, transactionControl, segmentPosition, segmentTag, element, code (table 723), message, ...',
  })
  diagnostics!: PreviewSet['diagnostics'];
  @ApiProperty({ type: [String], description: 'Element errors reported while the set is still accepted (AK5 E)' })
  notes!: string[];
  @ApiProperty({ description: 'The envelope check refused the set itself' }) envelopeRejected!: boolean;
  @ApiPropertyOptional({ description: 'Its interchange was refused: nothing of the set goes out' })
  interchangeRefused?: boolean;
}

export class AcknowledgmentSchema implements Acknowledgment {
  @ApiProperty({ enum: ['997', '999', 'TA1'] }) kind!: Acknowledgment['kind'];
  @ApiProperty({ description: 'ISA13 of the interchange acknowledged' }) acknowledges!: string;
  @ApiProperty({ description: 'The X12 text the sender would be sent' }) content!: string;
}

export class EdiPreviewSchema implements Preview {
  @ApiProperty({ type: () => EdiPreviewSummarySchema, description: 'The whole file counted' })
  summary!: PreviewSummary;
  @ApiProperty({
    type: () => [InterchangeOutcomeSchema],
    description:
      'The first 100 interchanges, in file order (summary.interchanges counts them all; full=1 streams every one)',
  })
  interchanges!: Interchange[];
  @ApiProperty({ type: () => [TransactionSetSchema], description: 'One page of the sets, in file order' })
  transactionSets!: PreviewSet[];
  @ApiProperty({ type: Number, nullable: true, description: 'Pass as `setsAfter` for the next page; null on the last' })
  nextSetsAfter!: number | null;
  @ApiProperty({ type: 'array', items: FREE_FORM, description: 'The canonical operations of the sets shown' })
  documents!: Preview['documents'];
  @ApiProperty({ type: () => [AcknowledgmentSchema], description: 'The acknowledgments of the interchanges listed' })
  acknowledgments!: Acknowledgment[];
  @ApiProperty({ type: [String], description: 'Problems outside any interchange (not X12 at all, ...)' })
  problems!: string[];
}
