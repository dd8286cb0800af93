/**
 * Local stand-ins for the outside world of the domain challenge: a tiny authoritative DNS
 * server answering TXT queries over UDP from a map, and an HTTP server serving files by
 * Host + path. Both listen on 127.0.0.1 with free ports; tests change the maps as they go.
 */
import { createSocket } from 'node:dgram';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DnsResponder {
  readonly port: number;
  /** Name (lower case, no trailing dot) → TXT records. */
  readonly txt: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startDnsResponder(): Promise<DnsResponder> {
  const txt = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    const answer = answerQuery(query, txt);
    if (answer !== undefined) socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: (socket.address() as AddressInfo).port,
    txt,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** One question in, one answer out: TXT records of the name, NXDOMAIN for unknown names. */
function answerQuery(query: Buffer, txt: Map<string, string[]>): Buffer | undefined {
  if (query.length < 17) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < query.length && query[offset] !== 0) {
    const length = query[offset]!;
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += 1 + length;
  }
  const questionEnd = offset + 5; // zero byte, type, class
  const qtype = query.readUInt16BE(offset + 1);
  const records = txt.get(labels.join('.').toLowerCase());
  const answers = qtype === 16 && records !== undefined ? records : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | (records === undefined ? 3 : 0), 2); // QR, AA, RD, rcode
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const parts = [header, query.subarray(12, questionEnd)];
  for (const value of answers) {
    const data = Buffer.from(value, 'utf8');
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // name: pointer to the question
    rr.writeUInt16BE(16, 2); // TXT
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6); // TTL
    rr.writeUInt16BE(data.length + 1, 10);
    parts.push(rr, Buffer.from([data.length]), data);
  }
  return Buffer.concat(parts);
}

export interface ChallengeServer {
  readonly port: number;
  /** `<host><path>` → body (200); anything else is 404. */
  readonly files: Map<string, string>;
  /** Headers of every request received, in order. */
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startChallengeServer(): Promise<ChallengeServer> {
  const files = new Map<string, string>();
  const requests: ChallengeServer['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const body = files.get(`${req.headers.host ?? ''}${req.url ?? ''}`);
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/elsewhere' }).end();
      return;
    }
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    files,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
