import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { parse as parseYaml } from 'yaml';
import { AppConfig, ENV_KEYS } from './config.schema';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Folder of `default.yaml` and `<NODE_ENV>.yaml`; `CONFIG_DIR` or `./config` when not given. */
  dir?: string;
  /** Values that win over files and environment (tests). */
  overrides?: Record<string, unknown>;
}

type Tree = Record<string, unknown>;

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(target: Tree, source: Tree): Tree {
  for (const [key, value] of Object.entries(source)) {
    target[key] = isTree(value) && isTree(target[key]) ? merge({ ...target[key] }, value) : value;
  }
  return target;
}

function setPath(tree: Tree, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = tree;
  for (const key of keys.slice(0, -1)) {
    if (!isTree(node[key])) {
      node[key] = {};
    }
    node = node[key] as Tree;
  }
  node[keys[keys.length - 1]] = value;
}

/** A number-looking env string becomes a number so `@IsInt` can judge it; the rest stays a string. */
const fromEnv = (raw: string): unknown => (/^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw);

function readYaml(file: string): Tree {
  try {
    const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
    if (parsed == null) {
      return {};
    }
    if (!isTree(parsed)) {
      throw new Error('top level must be a mapping');
    }
    return parsed;
  } catch (error) {
    throw new ConfigError([`${file}: ${(error as Error).message}`]);
  }
}

function describe(errors: ValidationError[], envFor: Map<string, string>, prefix = ''): string[] {
  return errors.flatMap((error) => {
    const key = prefix + error.property;
    const own = Object.values(error.constraints ?? {}).map((text) => {
      const env = envFor.get(key);
      return `${key}: ${text.replace(error.property, key)}${env ? ` (set by ${env})` : ''}`;
    });
    return [...own, ...describe(error.children ?? [], envFor, `${key}.`)];
  });
}

/**
 * Reads configuration once: `config/default.yaml`, then `config/<NODE_ENV>.yaml`, then the
 * environment variables of ENV_KEYS, then overrides. A bad value throws a ConfigError naming the key.
 */
export function loadConfig(options: LoadConfigOptions = {}): AppConfig {
  const env = options.env ?? process.env;
  const dir = options.dir ?? env.CONFIG_DIR ?? join(process.cwd(), 'config');
  const raw: Tree = {};
  for (const name of ['default', env.NODE_ENV].filter(Boolean)) {
    const file = join(dir, `${name}.yaml`);
    if (existsSync(file)) {
      merge(raw, readYaml(file));
    }
  }
  const envFor = new Map<string, string>();
  for (const [variable, key] of Object.entries(ENV_KEYS)) {
    const value = env[variable];
    if (value === undefined || value === '') {
      continue;
    }
    setPath(raw, key, fromEnv(value));
    envFor.set(key, variable);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    setPath(raw, key, value);
  }

  const config = plainToInstance(AppConfig, raw, { exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw new ConfigError(describe(errors, envFor));
  }
  // BullMQ's scripts touch many keys of a queue at once: on a cluster they must share one slot.
  if (config.redis.clusterNodes && !/\{[^}]+\}/.test(config.redis.prefix)) {
    throw new ConfigError([
      `redis.prefix (REDIS_PREFIX): "${config.redis.prefix}" has no {hash tag}; with redis.clusterNodes every queue key must be in one slot, e.g. {dockbridge}`,
    ]);
  }
  resolveTokenVariables(config, env);
  return config;
}

/** Platform account tokens named by `tokenEnv` are read here, once, so no other code reads the environment. */
function resolveTokenVariables(config: AppConfig, env: NodeJS.ProcessEnv): void {
  const problems: string[] = [];
  config.platform.accounts.forEach((account, i) => {
    if (account.token || !account.tokenEnv) {
      if (!account.token) {
        problems.push(`platform.accounts[${i}]: give token or tokenEnv`);
      }
      return;
    }
    const value = env[account.tokenEnv];
    if (value) {
      account.token = value;
    } else {
      problems.push(`platform.accounts[${i}].tokenEnv: environment variable ${account.tokenEnv} is not set`);
    }
  });
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
}
