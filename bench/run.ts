/**
 * Runs the benchmarks and writes BENCHMARKS.md.
 *
 *   npm run bench                 every suite; rewrites BENCHMARKS.md
 *   npm run bench -- log quote    only the named suites; their sections in BENCHMARKS.md are
 *                                 replaced, the other sections are kept
 *
 * A suite is a module under bench/ exporting `bench(): Promise<BenchSection[]>`. Suites measure
 * and report targets beside the figures; they never assert.
 */
import * as fs from 'fs';
import * as path from 'path';
import { mergeBenchmarks, renderMarkdown, type BenchSection } from './harness';

/** suite name → module (relative to this file), in report order */
export const SUITES: Record<string, string> = {
  log: './log.bench',
  projection: './projection.bench',
  programs: './programs.bench',
  quote: './quote.bench',
  routing: './routing-quality.bench',
  'route-search': './route-search.bench',
  price: './price.bench',
  stream: './stream.bench',
  interest: './interest.bench',
  'stream-window': './stream-window.bench',
  'stream-rates': './stream-rates.bench',
  swap: './swap.bench',
  landing: './landing.bench',
  'log-lifecycle': './log-lifecycle.bench',
  'rpc-ingest': './rpc-ingest.bench',
  geyser: './geyser.bench',
};

const OUT = path.join(__dirname, '..', 'BENCHMARKS.md');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !(a in SUITES));
  if (unknown.length > 0) {
    console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
  const names = args.length > 0 ? args : Object.keys(SUITES);
  const fresh: BenchSection[] = [];
  for (const name of names) {
    const file = path.join(__dirname, SUITES[name].slice(2) + '.ts');
    if (!fs.existsSync(file)) {
      console.log(`[bench] ${name}: no suite yet (${path.relative(process.cwd(), file)} missing), skipped`);
      continue;
    }
    console.log(`[bench] ${name} ...`);
    const t0 = Date.now();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(SUITES[name]) as { bench: () => Promise<BenchSection[]> };
    const sections = await mod.bench();
    for (const s of sections) {
      console.log(`\n## ${s.title}`);
      for (const r of s.rows) console.log(`  ${r.metric}: ${r.value}${r.target ? ` (target ${r.target}: ${r.verdict})` : ''}${r.notes ? `  — ${r.notes}` : ''}`);
    }
    fresh.push(...sections);
    console.log(`[bench] ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const date = new Date().toISOString().slice(0, 10);
  const command = args.length > 0 ? `npm run bench -- ${args.join(' ')}` : 'npm run bench';
  // a partial run keeps the other suites' sections and says in the header what it refreshed
  const text = args.length === 0 || !fs.existsSync(OUT) ? renderMarkdown(command, fresh, date) : mergeBenchmarks(fs.readFileSync(OUT, 'utf8'), command, fresh, date);
  fs.writeFileSync(OUT, text);
  console.log(`[bench] wrote BENCHMARKS.md (${fresh.length} section(s) from ${names.join(', ')})`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
