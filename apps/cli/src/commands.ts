import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import type { ApiClient } from '@dockbridge/api-client';
import { answer, ConnectionError, gatewayClient, GatewayError } from './client';
import {
  formatBulkReplay,
  formatEnded,
  formatReplayRun,
  formatReplayRunList,
  formatRunProgress,
  ReplayRun,
  RUN_OVER,
  formatGatewayError,
  formatMessageDetail,
  formatMessageList,
  formatPreview,
  formatPartner,
  formatPartnerList,
  formatReplay,
  formatSent,
  redact,
} from './format';
import { formatActivity, formatIssued, formatMe, formatOperatorList, formatRevoked } from './format-operators';
import {
  activityQuery,
  asTyped,
  ListOptions,
  MAPPING_CHOICES,
  operatorBody,
  replayRequest,
  ReplayOptions,
  replayRunsLimit,
  searchQuery,
  upload,
  UsageError,
  X12_CONTENT_TYPE,
} from './requests';

/** The gateway's default listen address (libs/config: gateway.port = 3000). */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

export const EXIT_OK = 0;
/** The gateway refused the request, the thing does not exist, or the gateway could not be reached. */
export const EXIT_REFUSED = 1;
/** The command line is wrong; nothing was sent. */
export const EXIT_USAGE = 2;

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Sends one request (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  readFile?(path: string): string;
  /** Whether stderr is a terminal: a bulk replay's progress is then one bar redrawn in place, otherwise a line per change. */
  isTTY?: boolean;
  /** How long to wait between two reads of a running bulk replay (default 1 s). */
  pollMs?: number;
}

interface GlobalOptions {
  url?: string;
  token?: string;
  verbose?: boolean;
}

const SECRET_FLAGS = ['--token', '--api-key'];

/** The secret values on this command line or in the environment, to be scrubbed from anything printed. */
export function secretsOf(argv: readonly string[], env: CliIo['env']): string[] {
  const secrets = [env.DOCKBRIDGE_ADMIN_TOKEN, env.DOCKBRIDGE_API_KEY];
  argv.forEach((arg, i) => {
    for (const flag of SECRET_FLAGS) {
      if (arg === flag) {
        secrets.push(argv[i + 1]);
      } else if (arg.startsWith(`${flag}=`)) {
        secrets.push(arg.slice(flag.length + 1));
      }
    }
  });
  return secrets.filter((s): s is string => !!s);
}

/** Runs one command line; returns the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const secrets = secretsOf(argv, io.env);
  const err = (lines: string[]) => io.stderr(redact(lines.join('\n'), secrets) + '\n');
  const out = (lines: string[]) => io.stdout(lines.join('\n') + '\n');
  const json = (value: unknown) => io.stdout(JSON.stringify(value, null, 2) + '\n');
  /** An answer as JSON (`--json`, for scripts) or as the text `format` makes of it. */
  const print = <T>(value: T, asJson: boolean | undefined, format: (value: T) => string[]) =>
    asJson ? json(value) : out(format(value));
  const readFile = io.readFile ?? ((path: string) => readFileSync(path, 'utf8'));

  const program = new Command('dockbridge')
    .description("Find, inspect and replay dockbridge messages through the gateway's admin API")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: (text) => io.stderr(redact(text, secrets)) })
    .showHelpAfterError('(add --help for usage)')
    .option('--url <url>', `gateway base URL (default: $DOCKBRIDGE_URL, else ${DEFAULT_URL})`)
    .option(
      '--token <token>',
      'admin token (default: $DOCKBRIDGE_ADMIN_TOKEN; prefer the variable: arguments show in ps and shell history)',
    )
    .option('-v, --verbose', 'print each request (method, URL, status, time; never headers) to stderr');

  const baseUrl = (globals: GlobalOptions): string => {
    const url = globals.url ?? io.env.DOCKBRIDGE_URL ?? DEFAULT_URL;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--url must be an http(s) URL such as ${DEFAULT_URL}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UsageError(`--url must be an http(s) URL such as ${DEFAULT_URL}`);
    }
    return url;
  };
  // Said when the gateway answers 401: which credential to check (never its value).
  let credentialHint = '(check DOCKBRIDGE_ADMIN_TOKEN or --token)';
  const trace = (globals: GlobalOptions) => (globals.verbose ? (line: string) => err([`> ${line}`]) : undefined);

  /** A client of the admin API; the token is required before anything is sent. */
  const admin = (command: Command): ApiClient => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const token = globals.token ?? io.env.DOCKBRIDGE_ADMIN_TOKEN;
    if (!token) {
      throw new UsageError("no admin token: set DOCKBRIDGE_ADMIN_TOKEN (the gateway's ADMIN_TOKEN) or pass --token");
    }
    return gatewayClient({ baseUrl: baseUrl(globals), adminToken: token, fetch: io.fetch, trace: trace(globals) });
  };

  /** A client acting as a partner (its API key), for sending and previewing. */
  const partner = (command: Command, apiKeyOption: string | undefined): ApiClient => {
    const globals = command.optsWithGlobals<GlobalOptions>();
    const apiKey = apiKeyOption ?? io.env.DOCKBRIDGE_API_KEY;
    if (!apiKey) {
      throw new UsageError(
        "no partner API key: set DOCKBRIDGE_API_KEY or pass --api-key (the gateway acts with that partner's settings)",
      );
    }
    credentialHint = '(check DOCKBRIDGE_API_KEY or --api-key)';
    return gatewayClient({ baseUrl: baseUrl(globals), apiKey, fetch: io.fetch, trace: trace(globals) });
  };

  /**
   * Reads a bulk replay run until it ends, showing its progress on stderr (stdout keeps the result
   * alone, for scripts); a few failed reads in a row are waited out, since the run goes on regardless.
   */
  const readRun = (client: ApiClient, runId: string) =>
    answer(client.GET('/v1/admin/replays/{runId}', { params: { path: { runId } } }));
  const waitForRun = async (client: ApiClient, runId: string): Promise<ReplayRun> => {
    err([`Waiting for bulk replay run ${runId} (Ctrl-C stops waiting, not the run: dockbridge replays show ${runId})`]);
    let shown = '';
    for (let failures = 0; ;) {
      let run: ReplayRun;
      try {
        run = await readRun(client, runId);
        failures = 0;
      } catch (error) {
        if (!(error instanceof ConnectionError) || ++failures >= MAX_POLL_FAILURES) {
          throw error;
        }
        await sleep(io.pollMs ?? POLL_MS);
        continue;
      }
      const line = formatRunProgress(run);
      if (io.isTTY) {
        io.stderr(`\r${line}\x1b[K${RUN_OVER.includes(run.status) ? '\n' : ''}`);
      } else if (line !== shown) {
        io.stderr(`${line}\n`);
      }
      shown = line;
      if (RUN_OVER.includes(run.status)) {
        return run;
      }
      await sleep(io.pollMs ?? POLL_MS);
    }
  };

  /** Prints a run that ended; a failed run is an error (exit 1). */
  const printRun = (run: ReplayRun, asJson: boolean | undefined) => {
    print(run, asJson, formatReplayRun);
    if (run.status === 'failed') {
      throw new RunFailed(`bulk replay run ${run.runId} failed${run.error ? `: ${run.error}` : ''}`);
    }
  };

  const messages = program.command('messages').description('search, inspect and replay messages');

  messages
    .command('list')
    .description('search messages, newest first (a readable table; --json for scripts)')
    .option(
      '--status <list>',
      'comma list: received, translating, delivering, delivered, partially_failed, failed, rejected, duplicate, superseded',
    )
    .option('--channel <list>', 'comma list: api, sftp, http-edi, webhook, replay, export')
    .option('--partner <id>', 'partner id')
    .option('--from <iso>', 'received at or after (ISO 8601)')
    .option('--to <iso>', 'received before (ISO 8601)')
    .option('--document <id>', 'messages with an operation on this document or booking id')
    .option('--file <name>', 'messages of a file by its name, exactly (SFTP and named HTTP uploads, export files)')
    .option(
      '--interchange <isa13>',
      'EDI messages carrying this interchange control number (ISA13; 123 finds 000000123)',
    )
    .option('--limit <n>', 'page size, 1 to 500 (gateway default 50)')
    .option('--cursor <id>', 'the next page: the cursor printed under the previous page')
    .option('--json', 'print the API answer as JSON')
    .action(async (options: ListOptions & { json?: boolean }, command: Command) => {
      const page = await answer(admin(command).GET('/v1/admin/messages', { params: { query: searchQuery(options) } }));
      print(page, options.json, formatMessageList);
    });

  messages
    .command('show')
    .description(
      'one message with its operations (outcome, attempts, last error), events and files (the upload, its 997/TA1)',
    )
    .argument('<id>', 'message id')
    .option('--json', 'print the API answer as JSON')
    .option('--after <seq>', 'the page of operations after this one (the detail says where the next page starts)')
    .option(
      '--payload',
      'print only the raw payload, exactly as stored (e.g. to edit it and replay with --payload-file)',
    )
    .action(async (id: string, options: { json?: boolean; payload?: boolean; after?: string }, command: Command) => {
      if (options.json && options.payload) {
        throw new UsageError('--json and --payload are alternatives; give one');
      }
      if (options.payload) {
        const payload = admin(command).GET('/v1/admin/messages/{id}/payload', {
          params: { path: { id } },
          headers: { accept: '*/*' },
          parseAs: 'text',
        });
        io.stdout(await answer(payload));
        return;
      }
      const detail = await answer(
        admin(command).GET('/v1/admin/messages/{id}', {
          params: { path: { id }, query: { operationsAfter: asTyped<number>(options.after) } },
        }),
      );
      if (options.json) {
        json(detail);
      } else {
        out(formatMessageDetail(detail));
      }
    });

  messages
    .command('replay')
    .description(
      'replay one message (by id) or every message a filter matches (bulk; a dry run unless --no-dry-run). Replays are new messages; originals are never changed',
    )
    .argument('[id]', 'message id; omit it and give filters for a bulk replay')
    .option('--failed-only', 'retry only the failed operations (default: rerun the whole raw payload)')
    .addOption(
      new Option(
        '--mapping <version>',
        'webhook messages: the mapping version to use (gateway default: original)',
      ).choices(MAPPING_CHOICES),
    )
    .option('--payload-file <path>', 'one message: edit-and-replay with this corrected payload (EDI or JSON text)')
    .option('--reason <text>', 'why, recorded with the replay')
    .option('--operator <name>', 'who, recorded as operator:<name> (gateway default: admin)')
    .option(
      '--force',
      'deliver even over newer writes to the same documents, vehicles or bookings (default: newer data wins)',
    )
    .option(
      '--override-organisations',
      "one message: deliver even to organisations outside the partner's profile (recorded with --operator and --reason)",
    )
    .option('--status <list>', 'bulk filter: comma list of statuses')
    .option('--channel <list>', 'bulk filter: comma list of channels')
    .option('--partner <id>', 'bulk filter: partner id')
    .option('--from <iso>', 'bulk filter: received at or after (ISO 8601)')
    .option('--to <iso>', 'bulk filter: received before (ISO 8601)')
    .option('--document <id>', 'bulk filter: document or booking id')
    .option('--file <name>', 'bulk filter: file name (uploads, exports)')
    .option('--interchange <isa13>', 'bulk filter: interchange control number (ISA13)')
    .option('--include-replayed', 'bulk: also replay messages whose latest replay was delivered (skipped by default)')
    .option('--dry-run', 'bulk: only count the matching messages (the default)')
    .option(
      '--no-dry-run',
      `bulk: replay the matching messages (at most ${BULK_REPLAY_LIMIT.toLocaleString('en')} a run), as a run on the gateway; waits for it with a progress bar`,
    )
    .option(
      '--detach',
      'bulk, with --no-dry-run: print the run id and return (follow it with `dockbridge replays show <id> --wait`)',
    )
    .option('--json', 'print the API answer as JSON (a bulk run: the finished run)')
    .action(
      async (
        id: string | undefined,
        options: ReplayOptions & { payloadFile?: string; json?: boolean },
        command: Command,
      ) => {
        const { payloadFile, json: asJson, ...rest } = options;
        const payload = payloadFile === undefined ? undefined : readText(readFile, payloadFile);
        const request = replayRequest(id, { ...rest, payload });
        const client = admin(command);
        if (!request.bulk) {
          const path = { id: request.id };
          print(
            await answer(client.POST('/v1/admin/messages/{id}/replay', { params: { path }, body: request.body })),
            asJson,
            formatReplay,
          );
          return;
        }
        const result = await answer(client.POST('/v1/admin/messages/replay', { body: request.body }));
        if (result.dryRun !== false || options.detach) {
          print(result, asJson, formatBulkReplay);
          return;
        }
        printRun(await waitForRun(client, result.runId), asJson);
      },
    );

  messages
    .command('end')
    .description(
      'give up on what a message still has to deliver: its pending and retrying operations end failed with the reason (newer writes they held back then go); refused while the platform holds any of them',
    )
    .argument('<id>', 'message id')
    .requiredOption('--reason <text>', 'why, recorded as each ended operation’s error')
    .option('--operator <name>', 'who, recorded as operator:<name> (gateway default: admin)')
    .option('--json', 'print the API answer as JSON')
    .action(async (id: string, options: { reason: string; operator?: string; json?: boolean }, command: Command) => {
      const body = { reason: options.reason, ...(options.operator && { operator: options.operator }) };
      print(
        await answer(admin(command).POST('/v1/admin/messages/{id}/end', { params: { path: { id } }, body })),
        options.json,
        formatEnded,
      );
    });

  const replays = program
    .command('replays')
    .description(
      `bulk replay runs: each real bulk replay (messages replay --no-dry-run) is a run on the gateway, at most ${BULK_REPLAY_LIMIT.toLocaleString('en')} messages`,
    );

  replays
    .command('show')
    .description('one run: status, progress, replayed and skipped (with reasons), whether the limit was reached')
    .argument('<runId>', 'run id (printed when the run started)')
    .option('--wait', 'wait until the run ends, with a progress bar')
    .option('--json', 'print the API answer as JSON')
    .action(async (runId: string, options: { wait?: boolean; json?: boolean }, command: Command) => {
      const client = admin(command);
      if (options.wait) {
        return printRun(await waitForRun(client, runId), options.json);
      }
      print(await readRun(client, runId), options.json, formatReplayRun);
    });

  replays
    .command('list')
    .description('the newest runs first')
    .option('--limit <n>', 'how many, 1 to 100 (gateway default 20)')
    .option('--json', 'print the API answer as JSON')
    .action(async (options: { limit?: string; json?: boolean }, command: Command) => {
      const page = await answer(
        admin(command).GET('/v1/admin/replays', { params: { query: { limit: replayRunsLimit(options.limit) } } }),
      );
      print(page, options.json, (p) => formatReplayRunList(p.items));
    });

  program
    .command('whoami')
    .description("the token's holder and role (viewer, operator or admin)")
    .option('--json', 'print the API answer as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      print(await answer(admin(command).GET('/v1/admin/me')), options.json, formatMe);
    });

  const operators = program
    .command('operators')
    .description('named admin API tokens with a role: viewer (read), operator (also replay, preview), admin (all)');

  operators
    .command('list')
    .description('every token, active first (names, roles and hints; never the tokens)')
    .option('--json', 'print the API answer as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      print(await answer(admin(command).GET('/v1/admin/operators')), options.json, (list) => formatOperatorList(list));
    });

  operators
    .command('create')
    .description('issue a token to a person; it is printed once')
    .argument('<name>', 'who holds it (letters, digits, . _ @ -)')
    .requiredOption('--role <role>', 'viewer, operator or admin')
    .option('--expires <date-time>', 'refused from then on (ISO 8601)')
    .option('--json', 'print the API answer as JSON')
    .action(async (name: string, options: { role: string; expires?: string; json?: boolean }, command: Command) => {
      const issued = await answer(
        admin(command).POST('/v1/admin/operators', { body: operatorBody(name, options.role, options.expires) }),
      );
      print(issued, options.json, formatIssued);
    });

  operators
    .command('revoke')
    .description('revoke a token: refused from its next call')
    .argument('<id>', "the token's id (operators list)")
    .option('--json', 'print the API answer as JSON')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const revoked = await answer(admin(command).DELETE('/v1/admin/operators/{id}', { params: { path: { id } } }));
      print(revoked, options.json, formatRevoked);
    });

  program
    .command('activity')
    .description('who changed what through the admin API (replays, partners, keys, secrets, tokens), newest first')
    .option('--target <target>', 'only changes to this: partner:<id>, message:<id>, operator:<id>')
    .option('--limit <n>', 'how many, 1 to 200 (default 50)')
    .option('--cursor <cursor>', 'the next page (printed at the end of the previous one)')
    .option('--json', 'print the API answer as JSON')
    .action(async (options: { target?: string; limit?: string; cursor?: string; json?: boolean }, command: Command) => {
      const page = await answer(
        admin(command).GET('/v1/admin/activity', { params: { query: activityQuery(options) } }),
      );
      print(page, options.json, formatActivity);
    });

  const partners = program
    .command('partners')
    .description('partner profiles (read-only here; change them with the admin API or config/partners/*.yaml)');

  partners
    .command('list')
    .description('every partner: id, name, enabled, location, what it sends')
    .option('--json', 'print the API answer as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await answer(admin(command).GET('/v1/admin/partners'));
      print(list, options.json, formatPartnerList);
    });

  partners
    .command('show')
    .description('one partner with its API keys (prefixes only: keys are never shown again)')
    .argument('<id>', 'partner id')
    .option('--json', 'print the API answer as JSON')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const partner = await answer(admin(command).GET('/v1/admin/partners/{id}', { params: { path: { id } } }));
      print(partner, options.json, formatPartner);
    });

  program
    .command('send')
    .description(
      "send a file as its partner would: X12 to /v1/edi (with the file's name), canonical JSON to /v1/messages (the partner's API key)",
    )
    .argument('<file>', 'X12 or JSON file')
    .option('--api-key <key>', "the partner's API key (default: $DOCKBRIDGE_API_KEY)")
    .option('--wait', 'wait until the message is settled and print its outcome')
    .option('--json', 'print the API answer as JSON')
    .action(async (file: string, options: { apiKey?: string; wait?: boolean; json?: boolean }, command: Command) => {
      const client = partner(command, options.apiKey);
      const text = readText(readFile, file);
      const sent = upload(text, basename(file));
      const accepted = await answer(
        sent.x12
          ? client.POST('/v1/edi', {
              params: { query: { fileName: sent.fileName } },
              body: text,
              headers: { 'content-type': X12_CONTENT_TYPE },
            })
          : // The file's own bytes, as its partner wrote them (the parsed message types the call).
            client.POST('/v1/messages', { body: sent.message, bodySerializer: () => text }),
      );
      if (!options.wait) {
        if (options.json) {
          json(accepted);
        } else {
          out([`Message ${accepted.messageId}: ${accepted.status}`]);
        }
        return;
      }
      const readStatus = () =>
        answer(client.GET('/v1/messages/{id}', { params: { path: { id: accepted.messageId } } }));
      let status = await readStatus();
      for (const started = Date.now(); !SETTLED.includes(status.status) && Date.now() - started < WAIT_MS;) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        status = await readStatus();
      }
      print(status, options.json, formatSent);
      if (!SETTLED.includes(status.status)) {
        throw new StillRunning(`message ${accepted.messageId} is still ${status.status} after ${WAIT_MS / 1000} s`);
      }
    });

  program
    .command('edi')
    .description('X12 EDI tools')
    .command('preview')
    .description('dry run: the documents and diagnostics an X12 file would produce; nothing is recorded or delivered')
    .argument('<file>', 'X12 file')
    .option('--api-key <key>', "the partner's API key (default: $DOCKBRIDGE_API_KEY)")
    .option('--json', 'print the API answer as JSON')
    .option('--after <n>', 'the page of transaction sets after the first n (the preview says where the next starts)')
    .option('--full', 'every set instead of a page: one JSON line each as the gateway maps them, the summary last')
    .action(
      async (
        file: string,
        options: { apiKey?: string; json?: boolean; after?: string; full?: boolean },
        command: Command,
      ) => {
        if (options.full && (options.after !== undefined || options.json)) {
          throw new UsageError('--full prints every set as JSON lines: give it without --after or --json');
        }
        const client = partner(command, options.apiKey);
        const text = readText(readFile, file);
        const headers = { 'content-type': X12_CONTENT_TYPE };
        if (options.full) {
          const lines = await answer(
            client.POST('/v1/edi/preview', {
              params: { query: { full: '1' } },
              body: text,
              headers,
              parseAs: 'stream',
            }),
          );
          for await (const chunk of lines!.pipeThrough(new TextDecoderStream())) {
            io.stdout(chunk);
          }
          return;
        }
        const preview = await answer(
          client.POST('/v1/edi/preview', {
            params: { query: { setsAfter: asTyped<number>(options.after) } },
            body: text,
            headers,
          }),
        );
        print(preview, options.json, formatPreview);
      },
    );

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    } // commander printed it
    if (error instanceof UsageError) {
      err([`error: ${error.message}`, '(add --help for usage)']);
      return EXIT_USAGE;
    }
    if (error instanceof GatewayError) {
      err(
        formatGatewayError(error.status, error.error, error.details, error.status === 401 ? credentialHint : undefined),
      );
      return EXIT_REFUSED;
    }
    if (error instanceof StillRunning || error instanceof RunFailed) {
      err([`error: ${error.message}`]);
      return EXIT_REFUSED;
    }
    if (error instanceof ConnectionError) {
      err([`error: ${error.message}`, `(is the gateway running there? set --url or DOCKBRIDGE_URL)`]);
      return EXIT_REFUSED;
    }
    err([`error: ${error instanceof Error ? error.message : String(error)}`]);
    return EXIT_REFUSED;
  }
}

/** Statuses a message ends in (`send --wait` stops there), and how long it waits. */
const SETTLED = ['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate', 'superseded'];
const WAIT_MS = 120_000;

/** `send --wait` gave up before the message settled. */
class StillRunning extends Error {}

/** The bulk replay run waited for ended `failed` (its result is printed first). */
class RunFailed extends Error {}

/** The gateway's cap on one bulk replay (BULK_REPLAY_LIMIT of @dockbridge/pipeline, which this thin client does not load). */
const BULK_REPLAY_LIMIT = 10_000;
/** Between two reads of a running bulk replay; reads that fail in a row before the wait gives up. */
const POLL_MS = 1_000;
const MAX_POLL_FAILURES = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readText(readFile: (path: string) => string, path: string): string {
  try {
    return readFile(path);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as { code?: string }).code ?? (error as Error).message}`);
  }
}
