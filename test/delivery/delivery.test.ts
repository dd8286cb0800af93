/**
 * Delivery under the outbound policy, against real local servers: a mail or SMS to 127.0.0.1 is
 * refused under the default policy without connecting (the server sees no connection) and
 * delivered when private networks are allowed (positive control); STARTTLS required against a
 * server that offers none fails with the client's error; provider hosts checked when saved.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedAddress, resolveAllowed } from '../../src/delivery/outbound-host.js';
import { sendSms } from '../../src/delivery/sms.js';
import { sendMail, type SmtpSettings } from '../../src/delivery/smtp.js';
import { OutboundAddressRefused, PUBLIC_ONLY } from '../../src/http/outbound-policy.js';

const ALLOW = { allowPrivateNetworks: true };
let smtpPort = 0;
let smtpConnections = 0;
let mails = 0;
let smtp: SMTPServer;
let httpUrl = '';
let httpRequests = 0;
let http: ReturnType<typeof createServer>;

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      smtpConnections += 1;
      callback();
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        mails += 1;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  http = createServer((req, res) => {
    httpRequests += 1;
    req.resume();
    req.on('end', () => res.writeHead(202).end('accepted'));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const settings = (overrides: Partial<SmtpSettings> = {}): SmtpSettings => ({
  host: '127.0.0.1',
  port: smtpPort,
  tlsMode: 'none',
  user: '',
  password: '',
  senderAddress: 'noreply@example.com',
  senderName: '',
  replyTo: '',
  ...overrides,
});
const message = { to: 'a@example.org', subject: 'hi', text: 'hello' };

describe('SMTP delivery', () => {
  it('is refused for a loopback server under the default policy, without connecting; delivered when allowed', async () => {
    const before = smtpConnections;
    for (const host of ['127.0.0.1', 'localhost']) {
      const refused = await sendMail(settings({ host }), message, PUBLIC_ONLY);
      expect(refused.success, host).toBe(false);
      expect(refused.answer, host).toContain('is not public');
    }
    expect(smtpConnections).toBe(before);
    const delivered = await sendMail(settings(), message, ALLOW);
    expect(delivered).toMatchObject({ success: true });
    expect(delivered.answer).toMatch(/^250/);
    expect(smtpConnections).toBe(before + 1);
  });

  it('STARTTLS required against a server that offers none fails with the error; no mail is accepted', async () => {
    const before = mails;
    const result = await sendMail(settings({ tlsMode: 'starttls' }), message, ALLOW);
    expect(result.success).toBe(false);
    expect(result.answer).toMatch(/STARTTLS/i);
    expect(mails).toBe(before);
  });
});

describe('SMS delivery', () => {
  it('is refused for a loopback URL under the default policy, without a request; delivered when allowed', async () => {
    const before = httpRequests;
    const sms = { type: 'generic', url: `${httpUrl}/sms`, signingKey: 'k' } as const;
    const msg = { to: '+41791234567', text: 't', instanceId: 'i', providerId: 'p' };
    const refused = await sendSms(sms, msg, PUBLIC_ONLY, 0);
    expect(refused.success).toBe(false);
    expect(refused.answer).toContain('is not public');
    expect(httpRequests).toBe(before);
    expect(await sendSms(sms, msg, ALLOW, 0)).toEqual({ success: true, answer: '202 accepted' });
    expect(httpRequests).toBe(before + 1);
  });
});

describe('provider hosts when saved', () => {
  it('names the refused address of a private host; public literals and unresolvable names pass', async () => {
    expect(await refusedAddress('10.0.0.1', PUBLIC_ONLY)).toBe('10.0.0.1');
    expect(await refusedAddress('[::1]', PUBLIC_ONLY)).toBe('::1');
    expect(await refusedAddress('localhost', PUBLIC_ONLY)).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect(await refusedAddress('8.8.8.8', PUBLIC_ONLY)).toBeUndefined();
    expect(await refusedAddress('no-such-host.invalid', PUBLIC_ONLY)).toBeUndefined();
    expect(await refusedAddress('10.0.0.1', ALLOW)).toBeUndefined();
    await expect(resolveAllowed('169.254.169.254', PUBLIC_ONLY)).rejects.toBeInstanceOf(OutboundAddressRefused);
    expect(await resolveAllowed('127.0.0.1', ALLOW)).toBe('127.0.0.1');
  });
});
