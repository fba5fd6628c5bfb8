/** No live file by that name in the partner's folder. */
export class PartnerFileNotFoundError extends Error {
  constructor(
    readonly partnerId: string,
    readonly folder: string,
    readonly fileName: string,
  ) {
    super(`file ${folder}/${fileName} of partner ${partnerId} not found`);
    this.name = 'PartnerFileNotFoundError';
  }
}

/** A live file already has the name (rename without `overwrite`). */
export class PartnerFileExistsError extends Error {
  constructor(
    readonly partnerId: string,
    readonly folder: string,
    readonly fileName: string,
  ) {
    super(`file ${folder}/${fileName} of partner ${partnerId} already exists`);
    this.name = 'PartnerFileExistsError';
  }
}

/** A folder that is not `inbound`/`outbound`, or a name that is not a plain file name. */
export class InvalidPartnerFilePathError extends RangeError {
  constructor(folder: string, fileName: string) {
    super(
      `invalid partner file path: ${JSON.stringify(folder)}/${JSON.stringify(fileName)} (folder inbound|outbound, a plain file name)`,
    );
    this.name = 'InvalidPartnerFilePathError';
  }
}
