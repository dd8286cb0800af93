/** PlatformTextSettings: every RPC definition of the service. */
import { resolveTextsRpc } from './resolve-texts.js';
import { setTextsRpc } from './set-texts.js';

export const textSettingsRpcs = [setTextsRpc, resolveTextsRpc] as const;
