#!/usr/bin/env node
/**
 * `npm run -s replay -- <command> ...`: the replay and audit tool (apps/router/src/replay/cli.ts)
 * from the build in dist/, building it first only when a source under apps/ or libs/ is newer
 * than the build (the compiler's output goes to stderr, so stdout carries only the JSON answer).
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const cli = path.join(root, 'dist', 'apps', 'router', 'src', 'replay', 'cli.js');

/** the newest modification time of the TypeScript sources under `dir` */
function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

const built = fs.existsSync(cli) ? fs.statSync(cli).mtimeMs : 0;
if (built < Math.max(newestSource(path.join(root, 'apps')), newestSource(path.join(root, 'libs')))) {
  process.stderr.write('replay: building the project first (sources changed since the last build)\n');
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 2);
  // (tsc leaves an unchanged output file's time alone: mark the build as current)
  const now = new Date();
  fs.utimesSync(cli, now, now);
}
require(cli);
