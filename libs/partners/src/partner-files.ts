import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { apiKeyDisplayPrefix, hashApiKey, isApiKeyFormat } from './api-key';
import { PartnerFileDto, toProfileInput, validateDto } from './partner-profile.dto';
import { PartnerRepository } from './partner.repository';
import { mappingCompileError, type PartnerMappingRepository } from './webhooks/mapping.repository';
import type { WebhookSecretRepository } from './webhooks/webhook-secret.repository';
import type { SftpCredentialRepository } from './sftp/sftp-credential.repository';
import { ConfigApiKey, PartnerProfileInput } from './partner.types';

/** One problem in one file; `field` is a path such as `settings.batchThreshold`, or '' for the whole file. */
export interface PartnerFileProblem {
  /** The file's path as found in the folder. */
  file: string;
  field: string;
  /** `<file>: <field> <what is wrong>`; never contains a key. */
  message: string;
}

/** A valid partner file: its profile and the keys it declares, already hashed (the plaintext is not kept). */
export interface PartnerFile {
  file: string;
  profile: PartnerProfileInput;
  keys: (ConfigApiKey & { expiresAt: Date | null })[];
  /**
   * False when a declared key could not be read (variable unset or malformed): the keys that could
   * are imported, but no config key of the partner is revoked, since the list is incomplete.
   */
  keysComplete: boolean;
  /** The JSONata webhook mapping the file points at, read. */
  mapping?: string;
  webhookSecrets: { label: string; secret: string }[];
  sftpUsers: { username: string; password?: string; publicKey?: string }[];
  /**
   * SHA-256 of what the file declares: its text and the text of the mapping it points at. An import
   * finding the hash it applied last writes neither profile nor mapping. Credentials from the
   * environment are not in it: they are synced at every import (idempotently).
   */
  sha256: string;
}

export interface PartnerFiles {
  profiles: PartnerFile[];
  problems: PartnerFileProblem[];
}

export interface PartnerFilesOptions {
  /** Where `keyEnv` variables are read from (the caller passes its validated environment). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Names of the configured platform accounts; when given, a profile naming another is refused. */
  platformAccounts?: readonly string[];
}

const PLAINTEXT_KEY = /dbk_[A-Za-z0-9_-]{43}/;

const problem = (file: string, field: string, text: string): PartnerFileProblem => ({
  file,
  field,
  message: `${file}: ${field ? (text.startsWith(field) ? text : `${field}: ${text}`) : text}`,
});

/** The first line of a YAML error ("... at line 3, column 5"), without the code frame that quotes the file. */
const firstLine = (error: unknown): string =>
  String((error as Error)?.message ?? error)
    .split('\n')[0]
    .replace(/:$/, '');

/**
 * Reads every `*.yaml` / `*.yml` file of `dir` (a missing folder holds no profiles), one partner
 * per file, in name order. Invalid files are left out and reported; nothing is written anywhere.
 */
export function loadPartnerFiles(dir: string, options: PartnerFilesOptions = {}): PartnerFiles {
  const env = options.env ?? {};
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.ya?ml$/i.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { profiles: [], problems: [] };
    }
    throw error;
  }

  const profiles: PartnerFile[] = [];
  const problems: PartnerFileProblem[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');

    const leaked = PLAINTEXT_KEY.exec(text);
    if (leaked) {
      const line = text.slice(0, leaked.index).split('\n').length;
      problems.push(
        problem(
          file,
          '',
          `line ${line} holds what looks like a plaintext API key; give keys as apiKeys[].keyEnv or apiKeyHashes[].sha256 (and revoke that key: it has been written down)`,
        ),
      );
      continue;
    }

    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (error) {
      problems.push(problem(file, '', `not valid YAML: ${firstLine(error)}`));
      continue;
    }

    const validated = validateDto(PartnerFileDto, parsed);
    if (!validated.ok) {
      problems.push(...validated.problems.map((p) => problem(file, p.field, p.message)));
      continue;
    }
    const dto = validated.value;

    const other = seen.get(dto.id);
    if (other) {
      problems.push(problem(file, 'id', `id ${dto.id} is already defined in ${other}`));
      continue;
    }
    if (options.platformAccounts && dto.platformAccount && !options.platformAccounts.includes(dto.platformAccount)) {
      problems.push(
        problem(file, 'platformAccount', `platformAccount ${dto.platformAccount} is not a configured platform account`),
      );
      continue;
    }
    seen.set(dto.id, file);

    const keys: PartnerFile['keys'] = [];
    let keysComplete = true;
    (dto.apiKeys ?? []).forEach((entry, i) => {
      const value = env[entry.keyEnv]?.trim();
      if (!value || !isApiKeyFormat(value)) {
        keysComplete = false;
        problems.push(
          problem(
            file,
            `apiKeys[${i}].keyEnv`,
            value
              ? `environment variable ${entry.keyEnv} does not hold a dbk_ key (dbk_ + 43 base64url characters)`
              : `environment variable ${entry.keyEnv} is not set; key "${entry.label}" not imported`,
          ),
        );
        return;
      }
      keys.push({
        label: entry.label,
        sha256: hashApiKey(value),
        keyPrefix: apiKeyDisplayPrefix(value),
        expiresAt: entry.expiresAt ? new Date(entry.expiresAt) : null,
      });
    });
    for (const entry of dto.apiKeyHashes ?? []) {
      keys.push({
        label: entry.label,
        sha256: entry.sha256.toLowerCase(),
        keyPrefix: entry.keyPrefix ?? null,
        expiresAt: entry.expiresAt ? new Date(entry.expiresAt) : null,
      });
    }

    const hash = createHash('sha256').update(text);
    let mapping: string | undefined;
    if (dto.webhookMapping) {
      try {
        mapping = readFileSync(resolve(dirname(file), dto.webhookMapping), 'utf8');
        hash.update('\0mapping\0').update(mapping);
      } catch (error) {
        problems.push(
          problem(
            file,
            'webhookMapping',
            `cannot read ${dto.webhookMapping}: ${(error as NodeJS.ErrnoException).code ?? firstLine(error)}`,
          ),
        );
      }
      const invalid = mapping === undefined ? undefined : mappingCompileError(mapping);
      if (invalid) {
        // Not published: the partner keeps the version it had.
        problems.push(
          problem(file, 'webhookMapping', `${dto.webhookMapping} is not a valid JSONata expression: ${invalid}`),
        );
        mapping = undefined;
      }
    }
    const webhookSecrets: PartnerFile['webhookSecrets'] = [];
    (dto.webhookSecrets ?? []).forEach((entry, i) => {
      const secret = env[entry.secretEnv]?.trim();
      if (secret) {
        webhookSecrets.push({ label: entry.label, secret });
      } else {
        problems.push(
          problem(
            file,
            `webhookSecrets[${i}].secretEnv`,
            `environment variable ${entry.secretEnv} is not set; secret "${entry.label}" was not imported`,
          ),
        );
      }
    });

    const sftpUsers: PartnerFile['sftpUsers'] = [];
    (dto.sftpUsers ?? []).forEach((entry, i) => {
      const password = entry.passwordEnv ? env[entry.passwordEnv] : undefined;
      if (entry.passwordEnv && !password) {
        problems.push(
          problem(
            file,
            `sftpUsers[${i}].passwordEnv`,
            `environment variable ${entry.passwordEnv} is not set; the password of ${entry.username} was not imported`,
          ),
        );
      }
      if (password || entry.publicKey) {
        sftpUsers.push({ username: entry.username, password, publicKey: entry.publicKey });
      }
    });

    profiles.push({
      file,
      profile: toProfileInput(dto),
      keys,
      keysComplete,
      mapping,
      webhookSecrets,
      sftpUsers,
      sha256: hash.digest('hex'),
    });
  }
  return { profiles, problems };
}

/** A file ignored because the admin API owns its partner (see PARTNER_SOURCES). */
export interface PartnerConflict {
  partnerId: string;
  file: string;
  /** `<file>: ...`, what to do about it. */
  message: string;
}

export interface PartnerImport {
  /** Ids of the partners written from their file (new, or the file changed), in file order. */
  imported: string[];
  /** Ids of file-owned partners whose file is as last applied: nothing written but credentials. */
  unchanged: string[];
  /** Files ignored because the API owns their partner. */
  conflicts: PartnerConflict[];
  problems: PartnerFileProblem[];
}

export interface ImportPartnersOptions extends PartnerFilesOptions {
  mappings?: PartnerMappingRepository;
  secrets?: WebhookSecretRepository;
  sftp?: SftpCredentialRepository;
}

/** What applyPartnerFile did with one file. */
export type PartnerFileOutcome =
  | { outcome: 'imported' | 'unchanged'; problems: PartnerFileProblem[] }
  | { outcome: 'conflict'; conflict: PartnerConflict; problems: PartnerFileProblem[] };

export const conflictMessage = (partnerId: string, file: string): string =>
  `${file}: partner ${partnerId} is owned by the admin API (source: api); this file is ignored. ` +
  `Remove the file, or give the partner back to it with POST /v1/admin/partners/${partnerId}/release`;

/**
 * Applies one valid partner file, respecting who owns the partner:
 * - the API owns it: nothing is written, the conflict is recorded on the partner and returned;
 * - the file owns it (or it is new) and the file is as last applied (`sha256`): the profile and the
 *   mapping are left alone (an unchanged file is not a new mapping version);
 * - else the profile is replaced and the mapping published (unless `force` is false and no hash
 *   was recorded yet — a partner imported before hashes were stored — and the mapping is already
 *   one of its versions: an API publish made before the upgrade stays current).
 * Credentials (keys, webhook secrets, SFTP users) of a file-owned partner are synced every time,
 * since they come from the environment: add-only, or for config keys, matched to the file.
 */
export async function applyPartnerFile(
  repo: PartnerRepository,
  entry: PartnerFile,
  options: ImportPartnersOptions = {},
  force = false,
): Promise<PartnerFileOutcome> {
  const { file, profile, keys, keysComplete, mapping, webhookSecrets, sftpUsers, sha256 } = entry;
  const problems: PartnerFileProblem[] = [];
  const existing = await repo.findById(profile.id);
  const conflict = async (): Promise<PartnerFileOutcome> => {
    await repo.recordConflict(profile.id, file);
    return {
      outcome: 'conflict',
      conflict: { partnerId: profile.id, file, message: conflictMessage(profile.id, file) },
      problems,
    };
  };
  if (existing?.source === 'api') {
    return conflict();
  }

  const stored = existing ? await repo.fileSha256(profile.id) : undefined;
  const unchanged = !force && existing !== null && stored === sha256;
  if (unchanged) {
    if (existing.file !== file) {
      await repo.recordFileApplied(profile.id, file, sha256);
    }
  } else {
    if (!(await repo.applyFile(profile, file))) {
      return conflict();
    } // adopted meanwhile
    if (mapping !== undefined && options.mappings) {
      const keepPublished =
        !force && existing !== null && stored === null && (await options.mappings.hasVersion(profile.id, mapping));
      if (!keepPublished) {
        await options.mappings.publish(profile.id, mapping);
      }
    }
  }

  if (options.secrets) {
    // Add-only: a secret dropped from the file is expired through the admin API (the end of a rotation),
    // and one that was expired or revoked is never brought back by a restart.
    for (const { label, secret } of webhookSecrets) {
      const status = await options.secrets.statusOf(profile.id, secret);
      if (status === 'unknown') {
        await options.secrets.add(profile.id, { label, secret });
      }
      if (status === 'ended') {
        problems.push(
          problem(
            file,
            'webhookSecrets',
            `secret "${label}" was expired or revoked and is not imported again: remove it from the file, or give the partner a new secret`,
          ),
        );
      }
    }
  }
  for (const user of options.sftp ? sftpUsers : []) {
    try {
      if (user.password) {
        await options.sftp!.setPassword(profile.id, user.username, user.password);
      }
      if (user.publicKey) {
        await options.sftp!.addPublicKey(profile.id, user.username, user.publicKey);
      }
    } catch (error) {
      problems.push(problem(file, 'sftpUsers', (error as Error).message));
    }
  }
  const sync = await repo.syncConfigKeys(profile.id, keys, { revokeUnlisted: keysComplete });
  problems.push(...sync.refused.map((r) => problem(file, 'apiKeys', r.reason)));
  // Last, so a failure above leaves the old hash and the next start applies the file again.
  if (!unchanged) {
    await repo.recordFileApplied(profile.id, file, sha256);
  }
  return { outcome: unchanged ? 'unchanged' : 'imported', problems };
}

/**
 * Configuration as code: applies every valid file of `dir` (applyPartnerFile) and makes its config
 * keys match the file (new ones added, removed ones revoked). A partner the admin API owns is
 * never changed by a file: the file is reported in `conflicts` (and on the partner) instead.
 * Problems are returned, not thrown: the caller decides whether they stop start-up.
 */
export async function importPartners(
  repo: PartnerRepository,
  dir: string,
  options: ImportPartnersOptions = {},
): Promise<PartnerImport> {
  const { profiles, problems } = loadPartnerFiles(dir, options);
  const result: PartnerImport = { imported: [], unchanged: [], conflicts: [], problems };
  for (const entry of profiles) {
    const applied = await applyPartnerFile(repo, entry, options);
    problems.push(...applied.problems);
    if (applied.outcome === 'conflict') {
      result.conflicts.push(applied.conflict);
    } else {
      result[applied.outcome].push(entry.profile.id);
    }
  }
  await repo.clearConflicts(result.conflicts.map((c) => c.partnerId));
  return result;
}
