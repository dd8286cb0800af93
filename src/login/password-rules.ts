/**
 * The instance's password rules as the login pages list them, in the page language: one line per
 * rule of the complexity policy (`passwordRule*` catalog keys; `{n}` is the minimum length). The
 * same rules the complexity check enforces (src/crypto/password.ts).
 */
import type { PasswordComplexity } from '../../actors/index.js';
import type { Translator } from '../i18n/index.js';

export function passwordRules(tr: Translator, policy: PasswordComplexity): string[] {
  const rules: string[] = [];
  if (policy.minLength > 0) rules.push(tr.t('passwordRuleMinLength').replace('{n}', () => String(policy.minLength)));
  if (policy.hasUppercase) rules.push(tr.t('passwordRuleUppercase'));
  if (policy.hasLowercase) rules.push(tr.t('passwordRuleLowercase'));
  if (policy.hasNumber) rules.push(tr.t('passwordRuleNumber'));
  if (policy.hasSymbol) rules.push(tr.t('passwordRuleSymbol'));
  return rules;
}
