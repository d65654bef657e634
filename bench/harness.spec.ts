import { machineLine, mergeBenchmarks, renderMarkdown, type BenchSection } from './harness';

const section = (title: string, value: string): BenchSection => ({ title, description: `${title} described`, rows: [{ metric: 'm', value }] });

describe('mergeBenchmarks (a partial npm run bench)', () => {
  const full = renderMarkdown('npm run bench', [section('Log adapters', '1'), section('Quote latency', '2'), section('Live stream', '3')], '2026-11-01');

  it('replaces the refreshed sections in place, keeps the others, and keeps the date of the full run', () => {
    const out = mergeBenchmarks(full, 'npm run bench -- quote', [section('Quote latency', '20')], '2026-11-20');
    expect(out).toContain('Produced by `npm run bench` on 2026-11-01.');
    expect(out).not.toContain('on 2026-11-20.\n\nMachine');
    expect(out).toContain('.\n\nSections refreshed on 2026-11-20 by `npm run bench -- quote`: Quote latency.\n\n## ');
    expect(out.indexOf('## Log adapters')).toBeLessThan(out.indexOf('## Quote latency'));
    expect(out.indexOf('## Quote latency')).toBeLessThan(out.indexOf('## Live stream'));
    expect(out).toContain('| m | 20 |');
    expect(out).not.toContain('| m | 2 |');
    expect(out).toContain('| m | 1 |');
    expect(out).toContain('| m | 3 |');
  });

  it('says what each later partial run refreshed; a section refreshed again is named only under its latest run', () => {
    const once = mergeBenchmarks(full, 'npm run bench -- quote stream', [section('Quote latency', '20'), section('Live stream', '30')], '2026-11-20');
    const twice = mergeBenchmarks(once, 'npm run bench -- stream', [section('Live stream', '300')], '2026-11-25');
    expect(twice).toContain('Sections refreshed on 2026-11-20 by `npm run bench -- quote stream`: Quote latency.');
    expect(twice).toContain('Sections refreshed on 2026-11-25 by `npm run bench -- stream`: Live stream.');
    expect(twice.match(/Live stream\./g)).toHaveLength(1);
    expect(twice.indexOf('2026-11-20 by')).toBeLessThan(twice.indexOf('2026-11-25 by'));
    // a run that refreshes every section the earlier one named drops its line
    const thrice = mergeBenchmarks(twice, 'npm run bench -- quote', [section('Quote latency', '2000')], '2026-11-26');
    expect(thrice).not.toContain('2026-11-20');
    expect(thrice).toContain('Produced by `npm run bench` on 2026-11-01.');
    expect(thrice.match(/^## /gm)).toHaveLength(3);
  });

  it('keeps the machine of the file in its header; a partial run on another machine names its own, and keeps naming it', () => {
    const other = 'Node v0.0.1, 1 cores (Another CPU), 1 GiB, linux x64';
    const elsewhere = full.replace(/^Machine: .*?\. Figures/m, `Machine: ${other}. Figures`);
    expect(elsewhere).toContain(`Machine: ${other}. Figures`);
    const once = mergeBenchmarks(elsewhere, 'npm run bench -- quote stream', [section('Quote latency', '20'), section('Live stream', '30')], '2026-11-20');
    expect(once).toContain(`Machine: ${other}. Figures`);
    expect(once).toContain(`Sections refreshed on 2026-11-20 by \`npm run bench -- quote stream\` on another machine (${machineLine()}): Quote latency; Live stream.`);
    const twice = mergeBenchmarks(once, 'npm run bench -- stream', [section('Live stream', '300')], '2026-11-25');
    expect(twice).toContain(`Sections refreshed on 2026-11-20 by \`npm run bench -- quote stream\` on another machine (${machineLine()}): Quote latency.`);
    expect(twice).toContain(`Machine: ${other}. Figures`);
    // on the file's own machine a line names none
    expect(mergeBenchmarks(full, 'npm run bench -- stream', [section('Live stream', '3')], '2026-11-20')).toContain('Sections refreshed on 2026-11-20 by `npm run bench -- stream`: Live stream.');
  });

  it('appends a section the file did not have, and claims no full run the file does not record', () => {
    const partialOnly = mergeBenchmarks('# Benchmarks\n\n## Log adapters\n\nold\n', 'npm run bench -- stream', [section('Live stream', '3')], '2026-11-20');
    expect(partialOnly).not.toContain('Produced by');
    expect(partialOnly.indexOf('## Log adapters')).toBeLessThan(partialOnly.indexOf('## Live stream'));
    expect(partialOnly).toContain('Sections refreshed on 2026-11-20 by `npm run bench -- stream`: Live stream.');
  });
});
