/** GetApp: GET /resources/v3alpha/apps/{id}; never returns the secret, only whether one is set. */
import { z } from 'zod';
import { PlatformApps } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireApp, toGetApp } from './shared.js';

const input = z.object({ id: resourceId });

export const getAppRpc = defineRpc({
  method: PlatformApps.method.getApp,
  permission: 'authenticated', // project.app.read, checked in the app's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { app: toGetApp(await requireApp(call, id, 'project.app.read')) };
  },
});
