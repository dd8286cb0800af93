/**
 * ResolveTexts: GET /settings/v3alpha/texts/{language}. Every login catalog key with the
 * context's text, or the inherited one and its owner (the system: the built-in catalog).
 */
import { PlatformTextSettings } from '../../../gen/platform/settings/text/v3alpha/text_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { contextDetails, requireSettingsAccess, toResolvedWire } from '../shared/context.js';
import { parseLanguage, readTextSettings } from './shared.js';

export const resolveTextsRpc = defineRpc({
  method: PlatformTextSettings.method.resolveTexts,
  permission: 'authenticated',
  async handle(request, call) {
    await requireSettingsAccess(call, 'read');
    const { own, resolved } = await readTextSettings(call, parseLanguage(request.language));
    const texts = Object.fromEntries(Object.entries(resolved).map(([key, value]) => [key, toResolvedWire(value)]));
    return { details: await contextDetails(call, own), settings: { texts } };
  },
});
