/**
 * The import rule (scripts/check-imports.js): each way of breaking it is caught, the allowed forms
 * pass, and the code base keeps it.
 */
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkFile, checkTree } = require('../scripts/check-imports.js') as {
  checkFile: (file: string, text: string) => string[];
  checkTree: (root: string) => string[];
};

/** the samples are built, so that this file's own text holds no import it would refuse */
const Q = "'";
const sample = (clause: string, specifier: string): string => `${clause} from ${Q}${specifier}${Q};`;

describe('the import rule', () => {
  it('refuses a relative path into a library, from an app, another library or a test', () => {
    expect(checkFile('apps/router/src/swap/x.ts', sample('import { a }', '../../../../libs/amm/src/pool'))).toHaveLength(1);
    expect(checkFile('libs/pools/src/x.ts', sample('import { a }', '../../amm/src/pool'))).toHaveLength(1);
    expect(checkFile('test/x.spec.ts', sample('import { a }', '../libs/amm/src/pool'))).toHaveLength(1);
  });

  it("refuses a library's internals from code, allows them from specs, benches and test suites", () => {
    const deep = sample('import { a }', '@app/amm/routing/route-search');
    expect(checkFile('apps/router/src/quote/x.ts', deep)).toHaveLength(1);
    expect(checkFile('libs/pools/src/x.ts', deep)).toHaveLength(1);
    expect(checkFile('apps/router/src/quote/x.spec.ts', deep)).toEqual([]);
    expect(checkFile('bench/x.bench.ts', deep)).toEqual([]);
    expect(checkFile('test/x.e2e.spec.ts', deep)).toEqual([]);
  });

  it("refuses a library's own alias inside it", () => {
    expect(checkFile('libs/amm/src/routing/x.ts', sample('import { Pool }', '@app/amm'))).toHaveLength(1);
    expect(checkFile('libs/amm/src/routing/x.ts', sample('import { Pool }', '../pool'))).toEqual([]);
  });

  it('refuses an app climbing into another app; the all-in-one process composes them; specs reach test/support', () => {
    expect(checkFile('apps/ingestor/src/rpc/x.ts', sample('import { P }', '../../../router/src/projection/projection'))).toHaveLength(1);
    expect(checkFile('apps/router/src/x.ts', `const w = require(${Q}../../stream/src/ws${Q});`)).toHaveLength(1);
    expect(checkFile('apps/router/src/x.ts', `jest.mock(${Q}../../stream/src/ws${Q});`)).toHaveLength(1);
    expect(checkFile('apps/all-in-one/src/main.ts', sample('import { RouterModule }', '../../router/src/router.module'))).toEqual([]);
    expect(checkFile('apps/router/src/x.spec.ts', sample('import { wait }', '../../../test/support/wait-for'))).toEqual([]);
    expect(checkFile('apps/router/src/x.ts', sample('import { wait }', '../../../test/support/wait-for'))).toHaveLength(1);
  });

  it('accepts public faces, packages and paths inside the unit', () => {
    const ok = [sample('import { Pool }', '@app/amm'), sample('import { Injectable }', '@nestjs/common'), sample('import type { X }', './x'), sample('export { y }', '../y')].join('\n');
    expect(checkFile('apps/router/src/swap/x.ts', ok)).toEqual([]);
  });

  it('holds on the whole code base', () => {
    expect(checkTree(path.resolve(__dirname, '..'))).toEqual([]);
  });
});
