/**
 * Real delivery for the verification tests (#14): an SMTP server (smtp-server) on 127.0.0.1
 * that keeps every delivered mail, a local HTTP receiver for the generic SMS webhook that keeps
 * every SMS, and reading the code out of a message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './harness.js';

export interface Mail {
  readonly to: readonly string[];
  readonly raw: string;
}

export interface Sms {
  readonly recipient: string;
  readonly text: string;
}

export async function startSmtpServer() {
  const delivered: Mail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        delivered.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { delivered, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export type Smtp = Awaited<ReturnType<typeof startSmtpServer>>;

/** A local HTTP receiver of the generic SMS webhook (JSON `{recipient, text, …}`), answering 200. */
export async function startSmsReceiver() {
  const received: Sms[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Sms;
      received.push({ recipient: body.recipient, text: body.text });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"queued"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/sms`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export type SmsReceiver = Awaited<ReturnType<typeof startSmsReceiver>>;

/** The node's default SMTP server is the test's (TESSERA_SMTP_*), private addresses allowed. */
export function deliveryEnv(smtp: Smtp): Record<string, string> {
  return {
    TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    TESSERA_SMTP_HOST: '127.0.0.1',
    TESSERA_SMTP_PORT: String(smtp.port),
    TESSERA_SMTP_TLS: 'none',
    TESSERA_SMTP_FROM: 'noreply@tessera.example',
    TESSERA_SMTP_FROM_NAME: 'Tessera',
    TESSERA_OUTBOX_POLL_MS: '200',
  };
}


/** Waits for mail number `index` (0-based) to `address` and answers its verification code. */
export async function mailedCode(smtp: Smtp, address: string, index: number): Promise<string> {
  const mail = await waitFor(`mail ${index} to ${address}`, () => smtp.delivered.filter((m) => m.to.includes(address))[index]);
  const code = /verification code is (\d{8})/.exec(mail.raw)?.[1];
  if (code === undefined) throw new Error(`no code in ${mail.raw.slice(0, 400)}`);
  return code;
}

/** Waits for SMS number `index` to `number` and answers its code. */
export async function smsCode(receiver: SmsReceiver, number: string, index: number): Promise<string> {
  const sms = await waitFor(`SMS ${index} to ${number}`, () => receiver.received.filter((s) => s.recipient === number)[index]);
  const code = /verification code is (\d{8})/.exec(sms.text)?.[1];
  if (code === undefined) throw new Error(`no code in ${sms.text}`);
  return code;
}

/** Another 8-digit code than `code`. */
export function otherCode(code: string): string {
  return String((Number(code) + 1) % 100_000_000).padStart(8, '0');
}
