/**
 * uws-loader.ts: a candidate that does not fit this platform leaves a reason naming why, and
 * the next candidate is tried; the package's own pure-JS fallback is never taken.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUws, UWS_CANDIDATES } from '../../src/http/uws-loader.js';
import { UWS_SKIP_REASON } from './uws.fixture.js';
import { suiteTempDir } from '../temp-dirs.js';

const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
const empty = suiteTempDir('tessera-uws-none-');
const broken = suiteTempDir('tessera-uws-broken-');
writeFileSync(join(broken, binary), 'not a shared object');

const PINNED = '@trufflesuite/uws-js-unofficial';

describe('loadUws', () => {
  it('names every candidate that does not fit, and why', () => {
    const result = loadUws([
      { package: 'tessera-no-such-uws-package', binaries: '.' },
      { package: PINNED, binaries: empty },
      { package: PINNED, binaries: broken },
    ]);
    expect(result.loaded).toBe(false);
    expect(result.loaded ? [] : result.reasons).toEqual([
      'tessera-no-such-uws-package: not installed',
      `${PINNED}: no binary for ${process.platform}-${process.arch} Node ${process.versions.node} (ABI ${process.versions.modules})`,
      expect.stringMatching(new RegExp(`^${PINNED.replace(/[./]/g, '\\$&')}: binary does not load: .+`)),
    ]);
  });

  // Positive control: the same list with the real candidates after the misfits loads one.
  it.skipIf(UWS_SKIP_REASON !== undefined)(`tries the next candidate and loads the first build that fits${UWS_SKIP_REASON === undefined ? '' : ` (skipped: ${UWS_SKIP_REASON})`}`, () => {
    const result = loadUws([{ package: 'tessera-no-such-uws-package', binaries: '.' }, { package: PINNED, binaries: broken }, ...UWS_CANDIDATES]);
    expect(result.loaded && result.package).toBe(PINNED);
    expect(result.loaded && typeof result.native.App).toBe('function');
  });
});
