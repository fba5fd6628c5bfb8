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
const firstLine = (error: unknown): string => String((error as Error)?.message ?? error).split('\n')[0].replace(/:$/, '');

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
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: [], problems: [] };
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
      problems.push(problem(file, '', `line ${line} holds what looks like a plaintext API key; give keys as apiKeys[].keyEnv or apiKeyHashes[].sha256 (and revoke that key: it has been written down)`));
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
      problems.push(problem(file, 'platformAccount', `platformAccount ${dto.platformAccount} is not a configured platform account`));
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
      keys.push({ label: entry.label, sha256: hashApiKey(value), keyPrefix: apiKeyDisplayPrefix(value), expiresAt: entry.expiresAt ? new Date(entry.expiresAt) : null });
    });
    for (const entry of dto.apiKeyHashes ?? []) {
      keys.push({ label: entry.label, sha256: entry.sha256.toLowerCase(), keyPrefix: entry.keyPrefix ?? null, expiresAt: entry.expiresAt ? new Date(entry.expiresAt) : null });
    }

    let mapping: string | undefined;
    if (dto.webhookMapping) {
      try {
        mapping = readFileSync(resolve(dirname(file), dto.webhookMapping), 'utf8');
      } catch (error) {
        problems.push(problem(file, 'webhookMapping', `cannot read ${dto.webhookMapping}: ${(error as NodeJS.ErrnoException).code ?? firstLine(error)}`));
      }
      const invalid = mapping === undefined ? undefined : mappingCompileError(mapping);
      if (invalid) {
        // Not published: the partner keeps the version it had.
        problems.push(problem(file, 'webhookMapping', `${dto.webhookMapping} is not a valid JSONata expression: ${invalid}`));
        mapping = undefined;
      }
    }
    const webhookSecrets: PartnerFile['webhookSecrets'] = [];
    (dto.webhookSecrets ?? []).forEach((entry, i) => {
      const secret = env[entry.secretEnv]?.trim();
      if (secret) webhookSecrets.push({ label: entry.label, secret });
      else problems.push(problem(file, `webhookSecrets[${i}].secretEnv`, `environment variable ${entry.secretEnv} is not set; secret "${entry.label}" was not imported`));
    });

    const sftpUsers: PartnerFile['sftpUsers'] = [];
    (dto.sftpUsers ?? []).forEach((entry, i) => {
      const password = entry.passwordEnv ? env[entry.passwordEnv] : undefined;
      if (entry.passwordEnv && !password) problems.push(problem(file, `sftpUsers[${i}].passwordEnv`, `environment variable ${entry.passwordEnv} is not set; the password of ${entry.username} was not imported`));
      if (password || entry.publicKey) sftpUsers.push({ username: entry.username, password, publicKey: entry.publicKey });
    });

    profiles.push({ file, profile: toProfileInput(dto), keys, keysComplete, mapping, webhookSecrets, sftpUsers });
  }
  return { profiles, problems };
}

export interface PartnerImport {
  /** Ids of the partners written, in file order. */
  imported: string[];
  problems: PartnerFileProblem[];
}

/**
 * Configuration as code: upserts every valid profile of `dir` with source 'config' and makes its
 * config keys match the file (new ones added, removed ones revoked). Problems are returned, not
 * thrown: the caller decides whether they stop start-up.
 */
export async function importPartners(
  repo: PartnerRepository,
  dir: string,
  options: PartnerFilesOptions & { mappings?: PartnerMappingRepository; secrets?: WebhookSecretRepository; sftp?: SftpCredentialRepository } = {},
): Promise<PartnerImport> {
  const { profiles, problems } = loadPartnerFiles(dir, options);
  const imported: string[] = [];
  for (const { file, profile, keys, keysComplete, mapping, webhookSecrets, sftpUsers } of profiles) {
    await repo.upsert(profile, 'config');
    imported.push(profile.id);
    if (mapping !== undefined && options.mappings) await options.mappings.publish(profile.id, mapping);
    if (options.secrets) {
      // Add-only: a secret dropped from the file is expired through the admin API (the end of a rotation),
      // and one that was expired or revoked is never brought back by a restart.
      for (const { label, secret } of webhookSecrets) {
        const status = await options.secrets.statusOf(profile.id, secret);
        if (status === 'unknown') await options.secrets.add(profile.id, { label, secret });
        if (status === 'ended') problems.push(problem(file, 'webhookSecrets', `secret "${label}" was expired or revoked and is not imported again: remove it from the file, or give the partner a new secret`));
      }
    }
    for (const user of options.sftp ? sftpUsers : []) {
      try {
        if (user.password) await options.sftp!.setPassword(profile.id, user.username, user.password);
        if (user.publicKey) await options.sftp!.addPublicKey(profile.id, user.username, user.publicKey);
      } catch (error) {
        problems.push(problem(file, 'sftpUsers', (error as Error).message));
      }
    }
    const sync = await repo.syncConfigKeys(profile.id, keys, { revokeUnlisted: keysComplete });
    problems.push(...sync.refused.map((r) => problem(file, 'apiKeys', r.reason)));
  }
  return { imported, problems };
}
