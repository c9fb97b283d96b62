#!/usr/bin/env node
require('../lib/src/cli/main.js')
  .main(process.argv)
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`rollwise: ${err && err.message ? err.message : err}\n`);
      process.exitCode = 1;
    },
  );
