/**
 * SearchSMTPProviders: POST /resources/v3alpha/smtp_providers/_search (`iam.smtp.read`). Every
 * provider of the instance by default; filters (description, host, senderAddress with any
 * TextFilterMethod, inIds, state) are ANDed; sorted by id, dates, description, host or sender.
 */
import { type AggregateRecord, SMTP_PROVIDERS, type SmtpProvider, smtpProviderIndexes } from '../../../../actors/index.js';
import { TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import {
  PlatformSMTPProviders,
  SmtpProviderFieldName,
  type SMTPProviderSearchFilter,
  SmtpProviderState,
} from '../../../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { activeProviderId, stateCondition } from '../../shared/providers.js';
import { knownEnum, maxChars, maxIds, specified, textCondition } from '../../shared/search.js';
import { toGetSmtpProvider } from './shared.js';

const text = [maxChars('text'), knownEnum('method', TextFilterMethod)];

const SEARCH: SearchDeclaration<SMTPProviderSearchFilter> = {
  table: smtpProviderIndexes,
  sort: {
    [SmtpProviderFieldName.UNSPECIFIED]: 'created',
    [SmtpProviderFieldName.ID]: 'id',
    [SmtpProviderFieldName.CREATION_DATE]: 'created',
    [SmtpProviderFieldName.CHANGE_DATE]: 'changed',
    [SmtpProviderFieldName.DESCRIPTION]: 'description',
    [SmtpProviderFieldName.HOST]: 'host',
    [SmtpProviderFieldName.SENDER_ADDRESS]: 'sender_address',
  },
  rules: {
    description: text,
    host: text,
    senderAddress: text,
    inIds: [maxIds()],
    state: [specified('state', 'state'), knownEnum('state', SmtpProviderState)],
  },
  async condition({ filter: f }, call: CallContext) {
    if (f.case === 'description') return textCondition('description', f.value.method, f.value.text);
    if (f.case === 'host') return textCondition('host', f.value.method, f.value.text);
    if (f.case === 'senderAddress') return textCondition('sender_address', f.value.method, f.value.text);
    if (f.case === 'inIds') return { ids: f.value.ids };
    if (f.case === 'state') return stateCondition(f.value.state, await activeProviderId(call, SMTP_PROVIDERS));
    return 'none';
  },
};

export const searchSmtpProvidersRpc = defineRpc({
  method: PlatformSMTPProviders.method.searchSMTPProviders,
  permission: 'iam.smtp.read',
  async handle(request, call) {
    const activeId = await activeProviderId(call, SMTP_PROVIDERS);
    const { details, rows } = await runSearch<SMTPProviderSearchFilter, AggregateRecord<SmtpProvider>>(call, SEARCH, request);
    return { details, sortingColumn: request.sortingColumn, result: rows.map((r) => toGetSmtpProvider(r, activeId)) };
  },
});
