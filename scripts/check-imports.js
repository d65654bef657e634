#!/usr/bin/env node
/**
 * The import rule of the code base, run by `npm test` (and `npm run lint:imports`):
 *
 *  - a library is reached by its alias and its public face: `@app/amm`, never a relative path
 *    into `libs/` and, from an app's or a library's code, never `@app/amm/<internal path>`;
 *  - a library's own files reach each other by relative paths inside it, never through its alias;
 *  - an app's code stays in the app: no relative import climbs out of `apps/<name>/` (the
 *    all-in-one process, whose job is to compose the apps' Nest modules, may import them).
 *
 * Specs, benches and the suites in `test/` may reach a library's internals, as
 * `@app/<lib>/<path>`, to test them, and specs the helpers in `test/support/`.
 */
'use strict';
const fs = require('fs');
const path = require('path');

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\bjest\.(?:mock|requireActual)\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;

/** a file that tests or measures (may reach a library's internals) */
function isTestCode(file) {
  return /^(test|bench)\//.test(file) || /\.(spec|bench)\.ts$/.test(file) || /\/bench\//.test(file);
}

/** the unit a file belongs to: `libs/<name>` or `apps/<name>` (null elsewhere) */
function unitOf(file) {
  const m = /^(libs|apps)\/([^/]+)\//.exec(file);
  return m ? `${m[1]}/${m[2]}` : null;
}

/**
 * The violations in one file (repo-relative path, its text): a list of `file: message` lines.
 */
function checkFile(file, text) {
  const problems = [];
  const unit = unitOf(file);
  const testCode = isTestCode(file);
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[2];
    if (spec.startsWith('@app/')) {
      const [, lib, rest] = /^@app\/([^/]+)(?:\/(.*))?$/.exec(spec) ?? [];
      if (unit === `libs/${lib}`) problems.push(`${file}: '${spec}': a library's own files import each other by relative paths, not through its alias`);
      else if (rest !== undefined && !testCode) problems.push(`${file}: '${spec}' reaches into a library's internals: import '@app/${lib}' (export what is needed from libs/${lib}/src/index.ts)`);
      continue;
    }
    if (!spec.startsWith('.')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    if (target.startsWith('libs/') && unitOf(target + '/') !== unit && unitOf(target) !== unit) {
      const lib = target.split('/')[1];
      problems.push(`${file}: '${spec}' climbs into libs/${lib}: import '@app/${lib}'`);
    } else if (unit && unit.startsWith('apps/') && !target.startsWith(unit + '/') && unit !== 'apps/all-in-one' && !(testCode && target.startsWith('test/'))) {
      problems.push(`${file}: '${spec}' climbs out of ${unit}`);
    }
  }
  return problems;
}

/** every TypeScript file of the code base, repo-relative */
function sourceFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts')) out.push(rel);
    }
  };
  for (const dir of ['apps', 'libs', 'test', 'bench']) if (fs.existsSync(path.join(root, dir))) walk(dir);
  return out;
}

function checkTree(root) {
  return sourceFiles(root).flatMap((file) => checkFile(file, fs.readFileSync(path.join(root, file), 'utf8')));
}

module.exports = { checkFile, checkTree };

if (require.main === module) {
  const problems = checkTree(path.resolve(__dirname, '..'));
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`${problems.length} import(s) break the rule (see scripts/check-imports.js)`);
    process.exit(1);
  }
}
