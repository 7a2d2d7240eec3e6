import net from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';

/** Bytes of the proxy's answer to a CONNECT kept at most before the tunnel counts as broken. */
const MAX_ANSWER_BYTES = 16 * 1024;

type ConnectArgs = Parameters<net.Socket['connect']>;

/** The net.Socket methods the tunnel drives below the stream's queue (stable since Node 12). */
interface SocketInternals {
  _writeGeneric(writev: false, data: Buffer, encoding: 'buffer', callback: (error?: Error | null) => void): void;
  _read(size: number): void;
}

/** Tunnelled sockets still waiting for the proxy's answer. */
const inHandshake = new WeakSet<net.Socket>();

interface TcpTarget {
  readonly host: string;
  readonly port: number;
}

/**
 * Raw TCP from a worker (database drivers, SMTP, SSH: `net.connect`, `new net.Socket().connect`,
 * `tls.connect`) goes through the host's egress proxy too, as a CONNECT tunnel on its unix
 * socket: the proxy resolves the name and applies the same policy as to HTTP, so a public host is
 * reached and a refused address is refused. Without this, the worker's namespace, which has no
 * route out, would leave such components no network at all, while Pipedream gives them the
 * internet. The socket is connected to the proxy, the CONNECT answer is read before the caller
 * sees anything, and only then does the caller get `connect`: to the driver it is a TCP socket.
 *
 * Node offers no hook to dial TCP differently (no such option on net.Socket), so the prototype's
 * `connect` is wrapped; a connection to a path (unix socket, the proxy itself) is left alone.
 */
export function tunnelRawTcp(socketPath: string): void {
  const original = net.Socket.prototype.connect;
  function connect(this: net.Socket, ...args: ConnectArgs): net.Socket {
    const target = tcpTarget(args);
    // A TLSSocket dials through its own handle: tls.connect below gives it a tunnelled socket instead.
    if (target === null || this instanceof tls.TLSSocket) return original.apply(this, args);
    const listener = args.find((arg): arg is () => void => typeof arg === 'function');
    if (listener) this.once('connect', listener);
    handshake(this, target);
    return (original as (options: net.IpcSocketConnectOpts) => net.Socket).call(this, { path: socketPath });
  }
  net.Socket.prototype.connect = connect as typeof original;

  const originalTls = tls.connect;
  const untouched = originalTls as (...a: unknown[]) => tls.TLSSocket;
  tls.connect = function tunnelledTls(...args: unknown[]): tls.TLSSocket {
    const options = tlsOptions(args);
    if (options === null || options.path) return untouched(...args);
    const given = options.socket;
    // A socket whose tunnel is up is plain TCP to TLS (a driver upgrading after a plaintext start).
    if (given && !(given instanceof net.Socket && inHandshake.has(given))) return untouched(...args);
    const listener = args.find((arg): arg is () => void => typeof arg === 'function');
    const tunnel = given ?? net.connect({ host: options.host ?? 'localhost', port: Number(options.port) });
    // TLS over a net.Socket reads its handle directly, which would hand the proxy's answer to
    // TLS; over a plain duplex it reads the stream, which starts after that answer.
    const socket = Duplex.from({ readable: tunnel, writable: tunnel });
    tunnel.once('error', (error) => socket.destroy(error));
    const servername = options.servername ?? (net.isIP(options.host ?? '') ? undefined : options.host);
    return originalTls({ ...options, socket, ...(servername ? { servername } : {}) }, listener);
  } as typeof tls.connect;
}

/** The host and port of a TCP connect call, or null for a unix socket path. */
function tcpTarget(args: ConnectArgs): TcpTarget | null {
  const [first, second] = args as unknown[];
  if (Array.isArray(first)) return tcpTarget(first as ConnectArgs);
  if (typeof first === 'object' && first !== null) {
    const options = first as net.TcpNetConnectOpts & { path?: string };
    if (options.path !== undefined || options.port === undefined) return null;
    return { host: options.host ?? 'localhost', port: Number(options.port) };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first)))
    return { host: typeof second === 'string' ? second : 'localhost', port: Number(first) };
  return null;
}

function tlsOptions(args: unknown[]): (tls.ConnectionOptions & { path?: string }) | null {
  const [first, second, third] = args;
  if (typeof first === 'object' && first !== null) return first as tls.ConnectionOptions;
  if (typeof first === 'number') {
    const rest = [second, third].find((arg) => typeof arg === 'object' && arg !== null) as
      tls.ConnectionOptions | undefined;
    return { ...rest, port: first, ...(typeof second === 'string' ? { host: second } : {}) };
  }
  return null;
}

/**
 * Asks the proxy for the tunnel as soon as the unix socket connects, and holds back the socket's
 * `connect` and incoming bytes until the proxy answered: 200 lets both through, anything else
 * ends the socket with ECONNREFUSED naming the proxy's reason.
 */
function handshake(socket: net.Socket, target: TcpTarget): void {
  inHandshake.add(socket);
  const authority = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  const emit = socket.emit.bind(socket);
  const push = socket.push.bind(socket);
  let answer = Buffer.alloc(0);
  let held: string[] = [];
  socket.emit = ((event: string, ...rest: unknown[]): boolean => {
    if (event === 'connect') {
      // Straight to the handle, not through write(): a write the caller made before the connection
      // was up sits in the stream's queue waiting for `connect`, and the request must go first.
      const internals = socket as unknown as SocketInternals;
      internals._writeGeneric(
        false,
        Buffer.from(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
        'buffer',
        (error) => {
          if (error) socket.destroy(error);
        },
      );
      // net.Socket starts reading on `connect`, held back here: the proxy's answer is read now.
      internals._read(0);
      return true;
    }
    if (event === 'ready') {
      held.push(event);
      return true;
    }
    return emit(event, ...rest);
  }) as typeof socket.emit;
  socket.push = ((chunk: Buffer | null): boolean => {
    if (chunk === null) return push(chunk);
    answer = Buffer.concat([answer, chunk]);
    const end = answer.indexOf('\r\n\r\n');
    if (end === -1) {
      if (answer.length > MAX_ANSWER_BYTES) refuse(socket, authority, 'the egress proxy sent no answer');
      return true;
    }
    const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/.exec(answer.subarray(0, end).toString('latin1'));
    socket.emit = emit;
    socket.push = push;
    inHandshake.delete(socket);
    if (status?.[1] !== '200') {
      const reason =
        answer
          .subarray(end + 4)
          .toString('utf8')
          .trim() || (status?.[2] ?? '').trim();
      refuse(socket, authority, reason || 'the egress proxy refused the connection');
      return false;
    }
    emit('connect');
    for (const event of held) emit(event);
    held = [];
    const rest = answer.subarray(end + 4);
    return rest.length > 0 ? push(rest) : true;
  }) as typeof socket.push;
}

function refuse(socket: net.Socket, authority: string, reason: string): void {
  const error = Object.assign(new Error(`connect ECONNREFUSED ${authority}: ${reason}`), {
    code: 'ECONNREFUSED',
    syscall: 'connect',
  });
  socket.destroy(error);
}
