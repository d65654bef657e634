/**
 * A tiny require hook: compiles `.ts` files on the fly with typescript's transpileModule
 * (no type checking), so `node -r ./test/support/ts-register.js some.ts` runs TypeScript.
 * CommonJS, ES2022, decorators with metadata, esModuleInterop; inline source maps so stack
 * traces point at the .ts lines when node runs with --enable-source-maps.
 */
'use strict';
const fs = require('fs');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
  resolveJsonModule: true,
  inlineSourceMap: true,
  inlineSources: false,
};

function compileTs(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { fileName: filename, compilerOptions, reportDiagnostics: false });
  module._compile(outputText, filename);
}

for (const ext of ['.ts', '.mts', '.cts']) {
  if (!require.extensions[ext]) require.extensions[ext] = compileTs;
}
