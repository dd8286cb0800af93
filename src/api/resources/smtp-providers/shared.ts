/** Read shape of an SMTP provider: every field but the password (`hasPassword` instead). */
import { create } from '@bufbuild/protobuf';
import { type AggregateRecord, detailsOf, type SmtpProvider } from '../../../../actors/index.js';
import { GetSMTPProviderSchema, SmtpProviderState, type GetSMTPProvider } from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { toDetails } from '../../shared/convert.js';
import { lastErrorOf } from '../../shared/providers.js';
import { WIRE_TLS_MODES } from './input.js';

export function toGetSmtpProvider(record: AggregateRecord<SmtpProvider>, activeId: string): GetSMTPProvider {
  const s = record.state;
  return create(GetSMTPProviderSchema, {
    details: toDetails(detailsOf(record)),
    smtpProvider: {
      description: s.description,
      host: s.host,
      port: s.port,
      tlsMode: WIRE_TLS_MODES[s.tlsMode],
      user: s.user,
      hasPassword: s.password !== '',
      senderAddress: s.senderAddress,
      senderName: s.senderName,
      replyToAddress: s.replyTo,
    },
    state: record.id === activeId ? SmtpProviderState.ACTIVE : SmtpProviderState.INACTIVE,
    ...lastErrorOf(record.state),
  });
}
