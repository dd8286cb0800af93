/** Shape rules of user input, shared by create and patch (zod; field paths in JSON names). */
import { z } from 'zod';
import { validationFailed } from '../../../../actors/index.js';

export const username = z
  .string()
  .min(1, 'required')
  .max(200, 'must be at most 200 characters')
  .regex(/^[^\s]+$/u, 'must not contain whitespace');

export const requiredName = z.string().trim().min(1, 'required').max(200, 'must be at most 200 characters');
export const optionalText = z.string().trim().max(200, 'must be at most 200 characters');
export const description = z.string().max(500, 'must be at most 500 characters');
export const emailAddress = z.string().trim().max(200, 'must be at most 200 characters').pipe(z.email('must be an email address'));
export const phoneNumber = z.string().regex(/^\+[0-9]{5,20}$/, 'must be "+" and 5 to 20 digits');
export const language = z.string().regex(/^([a-z]{2})?$/, 'must be a two-letter language code');
export const password = z.string().min(1, 'required').max(256, 'must be at most 256 characters');
export const enumNumber = z.number().int();

/** 400 naming `field` when a oneof / message that must be present is missing. */
export function missing(field: string, description = 'required'): Error {
  return validationFailed([{ field, description }]);
}
