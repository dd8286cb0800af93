/**
 * SearchSMSProviders: POST /resources/v3alpha/sms_providers/_search (`iam.sms.read`). Every
 * provider of the instance by default; filters (description with any TextFilterMethod, inIds,
 * state, type) are ANDed; sorted by id, dates, description or type.
 */
import { type AggregateRecord, SMS_PROVIDERS, type SmsProvider, smsProviderIndexes } from '../../../../actors/index.js';
import { TextFilterMethod } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';
import {
  PlatformSMSProviders,
  SmsProviderFieldName,
  type SMSProviderSearchFilter,
  SmsProviderState,
  SmsProviderType,
} from '../../../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { defineRpc } from '../../invoker.js';
import { runSearch, type SearchDeclaration } from '../../shared/indexed-search.js';
import { activeProviderId, stateCondition } from '../../shared/providers.js';
import { knownEnum, maxChars, maxIds, specified, textCondition } from '../../shared/search.js';
import { toGetSmsProvider } from './shared.js';

const SEARCH: SearchDeclaration<SMSProviderSearchFilter> = {
  table: smsProviderIndexes,
  sort: {
    [SmsProviderFieldName.UNSPECIFIED]: 'created',
    [SmsProviderFieldName.ID]: 'id',
    [SmsProviderFieldName.CREATION_DATE]: 'created',
    [SmsProviderFieldName.CHANGE_DATE]: 'changed',
    [SmsProviderFieldName.DESCRIPTION]: 'description',
    [SmsProviderFieldName.TYPE]: 'type',
  },
  rules: {
    description: [maxChars('text'), knownEnum('method', TextFilterMethod)],
    inIds: [maxIds()],
    state: [specified('state', 'state'), knownEnum('state', SmsProviderState)],
    type: [specified('type', 'type'), knownEnum('type', SmsProviderType)],
  },
  async condition({ filter: f }, call: CallContext) {
    if (f.case === 'description') return textCondition('description', f.value.method, f.value.text);
    if (f.case === 'inIds') return { ids: f.value.ids };
    if (f.case === 'state') return stateCondition(f.value.state, await activeProviderId(call, SMS_PROVIDERS));
    if (f.case === 'type') return { index: 'type', equals: f.value.type === SmsProviderType.GENERIC ? 'generic' : 'twilio' };
    return 'none';
  },
};

export const searchSmsProvidersRpc = defineRpc({
  method: PlatformSMSProviders.method.searchSMSProviders,
  permission: 'iam.sms.read',
  async handle(request, call) {
    const activeId = await activeProviderId(call, SMS_PROVIDERS);
    const { details, rows } = await runSearch<SMSProviderSearchFilter, AggregateRecord<SmsProvider>>(call, SEARCH, request);
    return { details, sortingColumn: request.sortingColumn, result: rows.map((r) => toGetSmsProvider(r, activeId)) };
  },
});
