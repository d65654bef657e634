/**
 * The command line of the operator CLIs (keys, license): `<command> [positional] [--name value ...]`,
 * and the failure they print: one line on stderr, exit status 2.
 */
export class CliError extends Error {}

export interface CliArgs {
  command: string;
  positional: string[];
  options: Record<string, string>;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const [command = '', ...rest] = argv;
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const value = rest[i + 1];
    if (value === undefined || value.startsWith('--')) throw new CliError(`option ${a} needs a value`);
    options[a.slice(2)] = value;
    i++;
  }
  return { command, positional, options };
}

export function option(args: CliArgs, name: string): string {
  const v = args.options[name];
  if (v === undefined || v.trim() === '') throw new CliError(`missing --${name}`);
  return v;
}

/** run a CLI's main: its JSON lines on stdout, a failure on stderr with exit status 2 */
export function runCli(main: (out: (o: object) => void) => Promise<void>): void {
  main((o) => process.stdout.write(`${JSON.stringify(o)}\n`)).then(
    () => process.exit(0),
    (e: Error) => {
      process.stderr.write(`${e instanceof CliError ? '' : 'error: '}${e.message}\n`);
      process.exit(2);
    },
  );
}
