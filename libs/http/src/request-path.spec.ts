import { isOpenPath, targetPath } from './request-path';

describe('request paths the gate leaves open', () => {
  it('takes the path of an origin-form or absolute-form target, without query or fragment', () => {
    expect(targetPath('/api/v1/tokens?x=1')).toBe('/api/v1/tokens');
    expect(targetPath('http://host:8080/api/v1/tokens?x=1')).toBe('/api/v1/tokens');
    expect(targetPath('HTTPS://host/health#x')).toBe('/health');
    expect(targetPath('http://host')).toBe('/');
  });

  it('opens /health and the docs however the router would route them', () => {
    for (const u of ['/health', '/HEALTH', '/health/', 'http://h/health', '/health?x', '/api/docs', '/API/Docs/', '/api/docs-json', '/api/docs/swagger-ui.css']) expect(isOpenPath(u)).toBe(true);
  });

  it('gates every other spelling: the API in any case or form, duplicate slashes, percent-encoding, dot segments', () => {
    for (const u of [
      '/api/v1/tokens',
      '/API/V1/TOKENS',
      'http://host/api/v1/tokens',
      '//api/v1/tokens',
      '/api//v1/tokens',
      '/%68ealth',
      '/api/docs/%2e%2e/v1/tokens',
      '/api/docs/../v1/tokens',
      '/api/docs//x',
      '/healthz',
      '/api/docsx',
      '/',
      undefined,
    ])
      expect(isOpenPath(u)).toBe(false);
  });
});
