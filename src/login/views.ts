/** The login UI's templates (./templates/*.eta, docs/login-ui.md "Templates"), read and compiled once at start. */
import { loadTemplates } from '../html/templates.js';

export const LOGIN_TEMPLATES = loadTemplates(new URL('./templates/', import.meta.url));
