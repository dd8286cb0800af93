/**
 * SMTP providers over TLS against real smtp-server instances with a throwaway certificate for
 * `localhost`: implicit TLS and STARTTLS deliver when the node trusts the certificate
 * (NODE_EXTRA_CA_CERTS), and the same providers on a node that does not trust it report the
 * certificate error instead (verification is on; the node connects to the checked address and
 * verifies the certificate against the configured host name: the certificate names `localhost`
 * only, not the address connected to).
 */
import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect } from 'vitest';
import { describeIfMet, itIfMet, meet, OPENSSL } from '../requirements.js';
import { api, startTestNode, type TestNode } from './harness.js';

const BASE = '/resources/v3alpha/smtp_providers';
const openssl = await meet(OPENSSL);

interface Certificate {
  readonly dir: string;
  readonly certPath: string;
  readonly keyPath: string;
}

/** A self-signed certificate for the name `localhost` only (no IP address), so it verifies only by name. */
function createCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-smtp-tls-'));
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', keyPath, '-out', certPath,
  ], { stdio: 'ignore' });
  return { dir, certPath, keyPath };
}

describeIfMet(openssl, 'SMTP providers over TLS', () => {
  let cert: Certificate;
  let trusting: TestNode;
  let untrusting: TestNode;
  const servers: SMTPServer[] = [];
  const delivered: string[] = [];
  const ports = { tls: 0, starttls: 0 };

  async function listen(secure: boolean, address: string): Promise<number> {
    const server = new SMTPServer({
      secure,
      key: readFileSync(cert.keyPath),
      cert: readFileSync(cert.certPath),
      authOptional: true,
      logger: false,
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          delivered.push(`${session.secure ? 'tls' : 'plain'}:${session.envelope.rcptTo.map((r) => r.address).join(',')}`);
          callback();
        });
      },
    });
    // a client that refuses the certificate closes the socket during the handshake
    server.on('error', () => undefined);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    return (server.server.address() as AddressInfo).port;
  }

  beforeAll(async () => {
    cert = createCertificate();
    // the node connects to the first address `localhost` resolves to
    const [first] = await lookup('localhost', { all: true });
    ports.tls = await listen(true, first!.address);
    ports.starttls = await listen(false, first!.address);
    trusting = await startTestNode({ env: { NODE_EXTRA_CA_CERTS: cert.certPath } });
    untrusting = await startTestNode();
  });
  afterAll(async () => {
    for (const node of [trusting, untrusting]) {
      await node?.stop();
      node?.cleanup();
    }
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (cert !== undefined) rmSync(cert.dir, { recursive: true, force: true });
  });

  async function providerOn(node: TestNode, tlsMode: string, port: number): Promise<string> {
    const created = await api(node)('POST', BASE, { host: 'localhost', port, tlsMode, senderAddress: 'tls@tessera.example' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.details.id;
  }

  for (const [mode, key] of [['SMTP_TLS_MODE_TLS', 'tls'], ['SMTP_TLS_MODE_STARTTLS', 'starttls']] as const) {
    itIfMet(openssl, `${mode}: delivered over TLS when the certificate is trusted, a certificate error when not`, async () => {
      const to = `${key}@example.org`;
      const trusted = await providerOn(trusting, mode, ports[key]);
      const ok = await api(trusting)('POST', `${BASE}/${trusted}/_test`, { address: to });
      expect(ok.status).toBe(200);
      expect(ok.body.success, ok.body.providerAnswer).toBe(true);
      expect(delivered).toContain(`tls:${to}`);

      const before = delivered.length;
      const untrusted = await providerOn(untrusting, mode, ports[key]);
      const refused = await api(untrusting)('POST', `${BASE}/${untrusted}/_test`, { address: to });
      expect(refused.status).toBe(200);
      expect(refused.body.success ?? false).toBe(false);
      expect(refused.body.providerAnswer).toMatch(/self[- ]signed certificate/i);
      expect(delivered.length).toBe(before);
    });
  }
});
