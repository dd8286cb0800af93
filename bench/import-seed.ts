/**
 * The users bench/scale.ts (SCALE_SEED=import) and bench/lmdb-bytes.ts seed through the
 * organization import (`POST /admin/v1/import`): the same usernames, names and emails as
 * scale.ts's `userBody(i)`, no password.
 */

/** Human user `i` of an import document. */
export const importedUser = (i: number) => ({
  userId: `scale-user-${i}`,
  user: {
    userName: `scale.user${i}`,
    profile: { firstName: 'Scale', lastName: `User ${i}`, nickName: '', displayName: '', preferredLanguage: 'en', gender: 'GENDER_UNSPECIFIED' },
    email: { email: `scale.user${i}@example.com`, isEmailVerified: false },
    passwordChangeRequired: false,
  },
});

/** An import document of users `from` (inclusive) to `to` (exclusive) into the existing organization `orgId` (its org item is skipped). */
export function importDocument(orgId: string, from: number, to: number): object {
  const humanUsers = Array.from({ length: to - from }, (_, k) => importedUser(from + k));
  return { timeout: '1h', data_orgsv1: { orgs: [{ orgId, org: { name: 'ignored: the organization exists' }, humanUsers }] } };
}
