/** The role list of a create or patch: up to 50 role names, no duplicates (the actor checks the context). */
import { z } from 'zod';

export const roleList = z
  .array(z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'))
  .max(50, 'at most 50 roles')
  .superRefine((roles, ctx) => {
    roles.forEach((role, i) => {
      if (roles.indexOf(role) !== i) ctx.addIssue({ code: 'custom', path: [i], message: 'duplicate role' });
    });
  });
