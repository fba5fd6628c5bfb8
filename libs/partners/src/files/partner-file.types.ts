/** The two folders every partner has: what it sends (`inbound`) and what it fetches (`outbound`). */
export const PARTNER_FOLDERS = ['inbound', 'outbound'] as const;
export type PartnerFolder = (typeof PARTNER_FOLDERS)[number];

/** Longest file name accepted (bytes of UTF-8 are not counted; characters are). */
export const PARTNER_FILE_NAME_MAX = 255;

/**
 * A plain file name: 1..255 characters, no `/` or `\`, no control characters, not `.` or `..`.
 * Folders are not nested, so a name is never a path.
 */
export function isPartnerFileName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.length <= PARTNER_FILE_NAME_MAX &&
    name !== '.' &&
    name !== '..' &&
    // Control characters (C0, C1), and the invisible or reordering ones that make a name read as another.
    // eslint-disable-next-line no-control-regex -- control characters are what it refuses
    !/[/\\\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/.test(name)
  );
}

export function isPartnerFolder(folder: unknown): folder is PartnerFolder {
  return typeof folder === 'string' && (PARTNER_FOLDERS as readonly string[]).includes(folder);
}

/** A live file of a partner, without its content. */
export interface PartnerFileInfo {
  id: string;
  partnerId: string;
  folder: PartnerFolder;
  name: string;
  size: number;
  /** Lowercase hex SHA-256 of the content. */
  sha256: string;
  createdAt: Date;
  /** The message an inbound upload became, or the message an outbound file (a 997, ...) belongs to. */
  messageId: string | null;
  /** What an outbound file is: `997`, `TA1`, `export`, ...; null for uploads. */
  kind: string | null;
}

/** A file, live or not (a message's files, for operators). */
export interface PartnerFileRecord extends PartnerFileInfo {
  /** When it was removed (by the partner, or replaced by a newer file of the same name); null while live. */
  removedAt: Date | null;
  /** When the partner first read it over SFTP; null until then. */
  fetchedAt: Date | null;
}

/** A file with its bytes. */
export interface PartnerFileWithContent extends PartnerFileInfo {
  content: Buffer;
}

export interface PutFileOptions {
  messageId?: string | null;
  kind?: string | null;
}

export interface RenameFileOptions {
  /** Replace a live file that already has the new name (default false: PartnerFileExistsError). */
  overwrite?: boolean;
}
