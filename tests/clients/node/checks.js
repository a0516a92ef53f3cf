// The check runner the client scripts share: checks run in order, each prints "ok <name>" or
// "FAIL <name>: <message>"; the first failure stops the run. `run` closes the clients and
// exits with 0 only when every check passed (the Python test reads the exit code and lines).
"use strict";

function checks() {
  const list = [];
  const check = (name, fn) => list.push([name, fn]);
  const run = async (...clients) => {
    let failed = false;
    for (const [name, fn] of list) {
      try {
        await fn();
        console.log(`ok ${name}`);
      } catch (e) {
        console.log(`FAIL ${name}: ${e && e.message}`);
        failed = true;
        break;
      }
    }
    for (const c of clients) c.disconnect();
    process.exit(failed ? 1 : 0);
  };
  return { check, run };
}

// Runs `main`, reporting a failure before the first check as "FAIL setup".
function start(main) {
  main().catch((e) => {
    console.log(`FAIL setup: ${e && e.message}`);
    process.exit(1);
  });
}

module.exports = { checks, start };
