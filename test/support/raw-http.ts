import { connect, Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** The HTTP/1.1 responses in `text`, in order (bodies by Content-Length, JSON parsed when it is JSON). */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = Buffer.from(text, 'latin1');
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const raw = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

/** A connection on which the test writes raw bytes and reads everything the server sends until it closes. */
export function rawConnection(port: number): { socket: Socket; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  const closed = new Promise<string>((resolve) => {
    socket.on('error', () => undefined); // a reset after the answer: what was received counts
    socket.on('close', () => resolve(received));
  });
  return { socket, closed };
}

/**
 * Sends `request` as it is (what fetch cannot send: malformed heads, huge URLs) and returns the server's one
 * answer. The server must close the connection (send `Connection: close` for a well-formed request).
 */
export async function rawRequest(port: number, request: string): Promise<RawResponse> {
  const { socket, closed } = rawConnection(port);
  socket.write(request);
  const [response] = parseResponses(await closed);
  if (!response) throw new Error('The server closed the connection without an answer');
  return response;
}
