import { AddressInfo, createServer, Server, Socket, connect } from 'node:net';

/**
 * A TCP proxy in front of a server (PostgreSQL in the fault tests), which a test can cut as a restart or
 * a network failure would: `cut()` resets every open connection and refuses new ones (the port stays
 * bound but answers nothing but resets), `restore()` lets connections through again.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** The first bytes each client sent (a PostgreSQL startup packet names its application_name). */
  private readonly greetings = new WeakMap<Socket, Buffer>();
  private down = false;

  private constructor(
    private readonly server: Server,
    readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** `spare`: keep the open connections whose first bytes contain it (e.g. a listener's application_name). */
  cut(options: { spare?: string } = {}): void {
    this.down = true;
    for (const socket of this.sockets) {
      if (options.spare && this.greetings.get(socket)?.includes(options.spare)) continue;
      socket.resetAndDestroy();
      this.sockets.delete(socket);
    }
  }

  restore(): void {
    this.down = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.down) return void client.resetAndDestroy();
    const upstream = connect(this.target.port, this.target.host);
    client.once('data', (chunk: Buffer) => {
      this.greetings.set(client, chunk);
      this.greetings.set(upstream, chunk);
    });
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  }
}
