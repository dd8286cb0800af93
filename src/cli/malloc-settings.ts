/**
 * The glibc malloc setting a node runs with (#13; docs/operations/running.md, "Memory").
 *
 * lmdb-js hands its writes to its writer thread in 64 KiB instruction buffers, a new
 * `ArrayBuffer` each time one fills (about every few hundred puts: opaque tokens, codes and
 * sessions are one put each). They live until a major collection, and glibc serves 64 KiB from
 * its arenas, between other allocations, so when they are freed the arena cannot give the
 * memory back: 30 s after a burst of opaque tokens a node held 76–112 MiB of anonymous memory,
 * against 41–44 MiB with the setting below. With allocations of 64 KiB and more served by their
 * own mappings (`MALLOC_MMAP_THRESHOLD_`), a freed buffer goes back to the kernel at once
 * (bench/README.md "RssAnon after an opaque run: lmdb-js's instruction buffers"). glibc's trim
 * threshold stays at its 128 KiB (a fixed mmap threshold stops glibc from raising it): raised to
 * 4 MiB it kept ~2.5 MiB more of an idle node's start-up garbage.
 *
 * glibc reads it when a process starts, so it is given to the node's environment by
 * whatever starts it: `npm start` (scripts/start.mjs), the bench, and the service manager
 * (the systemd unit in docs/operations/running.md). Other C libraries ignore it.
 */
export const MALLOC_SETTINGS: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '65536' };

/**
 * The settings to add to `env` for a node: none when the operator chose any malloc setting of
 * their own (a `MALLOC_*` variable or `GLIBC_TUNABLES`), so theirs are taken as they are.
 */
export function mallocSettingsFor(env: Readonly<Record<string, string | undefined>>): Readonly<Record<string, string>> {
  const chosen = Object.keys(env).some((name) => (name.startsWith('MALLOC_') || name === 'GLIBC_TUNABLES') && env[name] !== undefined);
  return chosen ? {} : MALLOC_SETTINGS;
}
