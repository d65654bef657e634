/**
 * Test harness for librdkafka's in-memory mock Kafka cluster (see kafka_mock.py beside this file).
 *
 * startKafkaMock() spawns the Python helper and resolves with the broker address it prints.
 * Policy for suites (see kafkaMockPolicy below): when the mock cannot be started the suite says
 * so loudly; with CI=true that is a failure, never a silent skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as path from 'path';

export interface KafkaMock {
  brokers: string[];
  stop(): Promise<void>;
}

const SCRIPT = path.join(__dirname, 'kafka_mock.py');
const START_TIMEOUT_MS = 15_000;

/**
 * Python interpreters to try, in order (the system one carries python3-confluent-kafka).
 * KAFKA_MOCK_PYTHON, when set, is the only one tried.
 */
function candidatePythons(): string[] {
  if (process.env.KAFKA_MOCK_PYTHON) return [process.env.KAFKA_MOCK_PYTHON];
  return ['/usr/bin/python3', 'python3'];
}

let cachedPython: string | null | undefined;

/** The first interpreter that can import confluent_kafka, or null. */
export function findMockPython(): string | null {
  if (cachedPython !== undefined) return cachedPython;
  cachedPython = null;
  for (const py of candidatePythons()) {
    const r = spawnSync(py, ['-c', 'import confluent_kafka'], { stdio: 'ignore', timeout: 10_000 });
    if (r.status === 0) {
      cachedPython = py;
      break;
    }
  }
  return cachedPython;
}

/** Why the mock cannot run here (no interpreter with confluent_kafka), or null when it can. */
export function kafkaMockUnavailableReason(): string | null {
  if (findMockPython()) return null;
  return (
    `no Python interpreter with the confluent_kafka module (tried ${candidatePythons().join(', ')}); ` +
    `install it with: apt-get install -y python3-confluent-kafka`
  );
}

/** Spawns the mock cluster; rejects after ~15 s without an address. */
export async function startKafkaMock(): Promise<KafkaMock> {
  const python = findMockPython();
  if (!python) throw new Error(`kafka mock unavailable: ${kafkaMockUnavailableReason()}`);
  const child: ChildProcess = spawn(python, ['-u', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      done();
      child.kill('SIGKILL');
      reject(new Error(`kafka mock did not print its address within ${START_TIMEOUT_MS} ms; output:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const m = /replaced with (\S+:\d+)/.exec(output);
      if (m) {
        done();
        resolve(m[1]);
      }
    };
    const onExit = (code: number | null, signal: string | null): void => {
      done();
      reject(new Error(`kafka mock exited early (code ${code}, signal ${signal}); output:\n${output}`));
    };
    const onError = (err: Error): void => {
      done();
      reject(new Error(`kafka mock could not be spawned: ${err.message}`));
    };
    function done(): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  // Keep draining output so the child never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();

  let stopped = false;
  return {
    brokers: [address],
    async stop(): Promise<void> {
      if (stopped) return exited;
      stopped = true;
      child.stdin?.end(); // the helper exits when stdin closes
      const t = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Banner printed when the mock is unavailable. */
export function loudMockBanner(reason: string): string {
  const line = '#'.repeat(78);
  return [
    line,
    '# KAFKA MOCK CLUSTER UNAVAILABLE: the kafka adapter cases are NOT being tested.',
    `# reason: ${reason}`,
    process.env.CI === 'true' ? '# CI=true: this is a test FAILURE.' : '# (not CI: these cases are skipped; set CI=true to make this a failure)',
    line,
  ].join('\n');
}
