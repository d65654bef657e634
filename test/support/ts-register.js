/**
 * A tiny require hook: compiles `.ts` files on the fly with typescript's transpileModule
 * (no type checking), so `node -r ./test/support/ts-register.js some.ts` runs TypeScript.
 * CommonJS, ES2022, decorators with metadata, esModuleInterop; inline source maps so stack
 * traces point at the .ts lines when node runs with --enable-source-maps. The libraries' `@app/*`
 * aliases resolve to their sources.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');

/** how long after the last file it compiled the compiler is let go */
const RELEASE_AFTER_MS = 1000;
/** the loaded compiler and its options (null: not loaded) */
let loaded = null;
let releaseTimer = null;

/**
 * The compiler, loaded with the first file to compile and let go again a second after the last:
 * about 17 MB of heap that a process which has loaded its modules has no more use for (the
 * benchmarks then measure a heap like the compiled build's, not one that also holds the
 * compiler). A file required later loads it again.
 */
function compiler() {
  if (loaded === null) {
    const ts = require('typescript');
    loaded = { ts, compilerOptions: optionsFor(ts) };
  }
  if (releaseTimer === null) {
    releaseTimer = setTimeout(release, RELEASE_AFTER_MS);
    releaseTimer.unref();
  } else releaseTimer.refresh();
  return loaded;
}

function release() {
  const id = require.resolve('typescript');
  const cached = require.cache[id];
  delete require.cache[id];
  module.children = module.children.filter((c) => c !== cached);
  loaded = null;
  releaseTimer = null;
}

const optionsFor = (ts) => ({
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
  resolveJsonModule: true,
  inlineSourceMap: true,
  inlineSources: false,
});

function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { ts, compilerOptions } = compiler();
  const { outputText } = ts.transpileModule(source, { fileName: filename, compilerOptions, reportDiagnostics: false });
  module._compile(outputText, filename);
}

/**
 * The libraries' aliases (`@app/amm`, `@app/amm/<path>`), read from tsconfig.json's paths: each
 * is resolved to the library's source folder, as the type checker and jest resolve it.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const ALIASES = Object.entries(JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions.paths)
  .filter(([alias]) => !alias.endsWith('/*'))
  .map(([alias, [target]]) => [alias, path.join(ROOT, target)]);
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveAlias(request, ...rest) {
  if (request.startsWith('@app/')) {
    for (const [alias, target] of ALIASES) {
      if (request === alias) return resolveFilename.call(this, target, ...rest);
      if (request.startsWith(alias + '/')) return resolveFilename.call(this, path.join(target, request.slice(alias.length + 1)), ...rest);
    }
  }
  return resolveFilename.call(this, request, ...rest);
};

for (const ext of ['.ts', '.mts', '.cts']) {
  if (!require.extensions[ext]) require.extensions[ext] = compileTs;
}

/** how long after the last file it compiled the compiler is let go (what a heap measurement waits for) */
module.exports = { RELEASE_AFTER_MS };
