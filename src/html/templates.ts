/**
 * Server-rendered HTML pages come from template files rendered by Eta with auto-escaping: every
 * `<%= value %>` is escaped (& < > " ' as numeric character references), `<%~ value %>` writes
 * raw and is kept for the output of other templates (the layout's body, partials) and for CSS
 * built from validated values. A set of templates is the `*.eta` files of one folder, read and
 * compiled once when the set is created (at module load), never per request; the build copies
 * the files next to the compiled modules (scripts/build.mjs). Layout: `<% layout('@layout') %>`,
 * partials: `<%~ include('@name', { … }) %>` (a partial sees the caller's data merged with its
 * own, so partials read their own data under one key, e.g. `it.form`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Eta } from 'eta/core';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface Templates {
  /** The names of the loaded templates (file names without `.eta`). */
  readonly names: readonly string[];
  /** Renders template `name` with `data` (available as `it` in the template). */
  render(name: string, data: object): string;
}

/** Loads and compiles every `*.eta` file of `folder` (a file: URL ending in `/`). */
export function loadTemplates(folder: URL): Templates {
  const eta = new Eta({
    autoEscape: true,
    escapeFunction: (value: unknown) => escapeHtml(String(value)),
    // A newline right after a tag is dropped: control-flow lines leave no blank lines behind.
    autoTrim: [false, 'nl'],
    useWith: false,
    varName: 'it',
  });
  const names = readdirSync(folder)
    .filter((file) => file.endsWith('.eta'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.eta'.length);
      // The file's final newline is not part of the template (a partial renders inline).
      eta.loadTemplate(`@${name}`, readFileSync(new URL(file, folder), 'utf8').replace(/\r?\n$/u, ''));
      return name;
    });
  const known = new Set(names);
  return {
    names,
    render(name, data) {
      if (!known.has(name)) throw new Error(`no template ${name} in ${folder.pathname}`);
      return eta.render(`@${name}`, data);
    },
  };
}
