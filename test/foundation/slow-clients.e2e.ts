import { parseResponses, rawConnection } from '../support/raw-http';
import { siteFixture, startTestApp, TestApp } from '../support/test-app';

const REQUEST_TIMEOUT_MS = 1500;
const HEADERS_TIMEOUT_MS = 1000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
/** Node looks for expired requests every quarter of the headers timeout here (at most every second); the rest is a loaded machine's slack. */
const SLACK_MS = 1500;

/** What the server sent on the connection until it closed it, and when; fails after `limitMs` instead of hanging. */
async function untilClosed(
  port: number,
  send: (write: (text: string) => void) => void,
  limitMs = 10_000,
): Promise<{ text: string; ms: number }> {
  const { socket, closed } = rawConnection(port);
  const started = performance.now();
  send((text) => socket.write(text));
  const limit = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still open after ${limitMs} ms`)), limitMs).unref());
  try {
    const text = await Promise.race([closed, limit]);
    return { text, ms: performance.now() - started };
  } finally {
    socket.destroy();
  }
}

describe('slow clients cannot hold sockets (HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS)', () => {
  let t: TestApp;
  let port: number;
  let siteId: string;

  beforeAll(async () => {
    t = await startTestApp({
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    });
    siteId = String((await t.seed({ site: siteFixture() })).appID);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const expectTimeoutAnswer = (text: string) => {
    // 408 in the failure envelope, or (had the socket gone first) nothing at all: never an answer to a request that never arrived.
    const responses = parseResponses(text);
    expect(responses.length).toBeLessThanOrEqual(1);
    if (responses[0]) {
      expect(responses[0].status).toBe(408);
      expect(responses[0].body).toEqual({ status: 'Failed', message: 'Request timeout' });
    }
  };

  it('answers 408 and closes a request whose body stops after one byte of the 100 announced', async () => {
    const { text, ms } = await untilClosed(port, (write) =>
      write(
        `POST /getDataRows HTTP/1.1\r\nHost: localhost\r\nsite-id: ${siteId}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      ),
    );
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expectTimeoutAnswer(text);
  });

  it('answers 408 and closes a request head that stops halfway', async () => {
    const { text, ms } = await untilClosed(port, (write) =>
      write(`POST /getDataRows HTTP/1.1\r\nHost: localhost\r\nsite-id: ${siteId}\r\n`),
    );
    expect(ms).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    expectTimeoutAnswer(text);
  });

  it('serves a slow but steady request that arrives within the timeout', async () => {
    const body = JSON.stringify({ table: 'core_products', isPaging: true, perPage: 5 });
    const head = `POST /getDataRows HTTP/1.1\r\nHost: localhost\r\nsite-id: ${siteId}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const { text } = await untilClosed(port, (write) => {
      // The head at once, then the body in ten pieces over ~0.7 s.
      write(head);
      const pieces = body.match(/.{1,6}/g)!;
      const step = Math.ceil(pieces.length / 10);
      for (let i = 0; i < 10; i++) setTimeout(() => write(pieces.slice(i * step, (i + 1) * step).join('')), 70 * (i + 1));
    });
    const [response] = parseResponses(text);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'Success', data: [] });
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const { text, ms } = await untilClosed(port, (write) => write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    expect(parseResponses(text).map((r) => r.status)).toEqual([200]);
    expect(ms).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 100);
    // Node 24 keeps the socket a second beyond the timeout it announces (server.keepAliveTimeoutBuffer).
    expect(ms).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1000 + SLACK_MS);
  });
});
