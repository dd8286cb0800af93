/**
 * The requirement helper decides run / skip / fail from the environment it is given: under
 * CI=true a missing PostgreSQL or program fails the suite, elsewhere it is skipped with the
 * reason; a reachable one runs (positive control, when this machine has it).
 */
import { describe, expect, it } from 'vitest';
import { evaluate, executable, itIfMet, meet, POSTGRES } from './requirements.js';

// Port 1 on loopback: nothing listens there, so the connection is refused at once.
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/test';
const reachable = await meet(POSTGRES);

describe('requirements', () => {
  it('fails under CI=true when PostgreSQL is unreachable, naming the reason', async () => {
    const verdict = await evaluate(POSTGRES, { CI: 'true', TESSERA_TEST_DATABASE_URL: UNREACHABLE });
    expect(verdict).toMatchObject({ requirement: 'PostgreSQL', outcome: 'fail' });
    expect(verdict.outcome !== 'run' && verdict.reason).toMatch(/unreachable/);
  });

  it('fails under CI=true when the database URL is not set at all', async () => {
    expect(await evaluate(POSTGRES, { CI: 'true' })).toEqual({ requirement: 'PostgreSQL', outcome: 'fail', reason: 'TESSERA_TEST_DATABASE_URL is not set' });
  });

  it('skips with the reason outside CI (CI unset or not "true")', async () => {
    expect(await evaluate(POSTGRES, { TESSERA_TEST_DATABASE_URL: UNREACHABLE })).toMatchObject({ outcome: 'skip', reason: expect.stringMatching(/unreachable/) });
    expect(await evaluate(POSTGRES, { CI: 'false' })).toMatchObject({ outcome: 'skip', reason: 'TESSERA_TEST_DATABASE_URL is not set' });
  });

  it('fails under CI=true for a missing or failing program, and runs for a working one', async () => {
    const missing = executable('ghost', '/nonexistent/ghost', ['--version'], 'never installed');
    expect(await evaluate(missing, { CI: 'true' })).toEqual({ requirement: 'ghost', outcome: 'fail', reason: '/nonexistent/ghost is missing (never installed)' });
    const failing = executable('false', process.execPath, ['-e', 'process.exit(3)'], 'a program that fails');
    expect(await evaluate(failing, { CI: 'true' })).toMatchObject({ outcome: 'fail', reason: expect.stringContaining('exited with 3') });
    const working = executable('node', process.execPath, ['--version'], 'this very node');
    expect(await evaluate(working, { CI: 'true' })).toEqual({ requirement: 'node', outcome: 'run' });
  });

  itIfMet(reachable, 'runs when PostgreSQL answers, under CI=true too (positive control)', async () => {
    expect(await evaluate(POSTGRES, { CI: 'true', TESSERA_TEST_DATABASE_URL: process.env.TESSERA_TEST_DATABASE_URL })).toEqual({ requirement: 'PostgreSQL', outcome: 'run' });
  });
});
