#!/usr/bin/env node
import { run } from './commands';

// `dockbridge … | head` closes stdout early: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') {
    process.exit(0);
  }
  throw error;
});

// run answers every failure with an exit code; it does not reject.
void run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  isTTY: process.stderr.isTTY === true,
}).then((code) => {
  // exitCode, not exit(): lets piped output flush.
  process.exitCode = code;
});
