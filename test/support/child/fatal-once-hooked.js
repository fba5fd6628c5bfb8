// Preloaded (with --allow-natives-syntax) into a server process: once the process has hooked SIGTERM
// (the app called enableShutdownHooks), V8 aborts the way a fatal error does (`%Abort`: the trap
// instruction V8 ends with on e.g. "invalid size error"). With SIGTRAP/SIGILL hooked the process
// would spin on that trap; otherwise it dies of it.
const poll = setInterval(() => {
  if (process.listenerCount('SIGTERM') === 0) {
    return;
  }
  clearInterval(poll);
  console.log('HOOKED');
  setTimeout(() => new Function('%Abort(0)')(), 200);
}, 50);
