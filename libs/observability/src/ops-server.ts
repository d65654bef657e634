/**
 * The operations endpoint of an app without an HTTP API (the ingestor alone): GET /metrics and
 * GET /health on a port of its own (METRICS_PORT), for Prometheus and an orchestrator's probe.
 */
import * as http from 'node:http';
import { serveMetrics } from './access-log';
import { logger } from './logger';

export interface HealthAnswer {
  ok: boolean;
  body: object;
}

export function startOpsServer(port: number, health: () => Promise<HealthAnswer>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, body: object): void => {
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, { success: false, error: 'method not allowed' });
    if (path === '/metrics') {
      serveMetrics(res).catch(() => answer(500, { success: false, error: 'internal error' }));
    } else if (path === '/health') {
      health().then(
        (h) => answer(h.ok ? 200 : 503, h.body),
        (e: Error) => answer(503, { status: 'unavailable', reason: e.message }),
      );
    } else answer(404, { success: false, error: 'not found' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      logger().info(`metrics and health on :${port} (/metrics, /health)`);
      resolve(server);
    });
  });
}
