/**
 * Puts a running process into a memory cgroup of its own with a hard limit (bench:scale's
 * SCALE_MEMORY_LIMIT_MIB): what the node does when LMDB's mapped data file can no longer stay in
 * the page cache beside it. Needs root and a memory controller (cgroup v2 at /sys/fs/cgroup, or
 * v1's /sys/fs/cgroup/memory); the group is removed at cleanup, the process moved back first.
 *
 * Pages the process touched before the move stay charged where they were (v1 moves them only
 * with move_charge_at_immigrate, set where the kernel still takes it; v2 never moves them), so
 * move it right after start, before it reads its data.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cleanup } from './processes.js';

export interface MemoryLimit {
  /** Bytes charged to the group now, and the most it ever held. */
  usage(): { readonly current: number; readonly peak: number | undefined };
}

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

export function confineMemory(pid: number, limitMiB: number, cleanup: Cleanup): MemoryLimit {
  if (!Number.isInteger(limitMiB) || limitMiB <= 0) throw new Error(`SCALE_MEMORY_LIMIT_MIB: a positive whole number of MiB, got ${limitMiB}`);
  if (process.getuid?.() !== 0) throw new Error('SCALE_MEMORY_LIMIT_MIB needs root (it creates a memory cgroup)');
  const v2 = existsSync(join(V2_ROOT, 'cgroup.controllers')) && readFileSync(join(V2_ROOT, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory');
  const root = v2 ? V2_ROOT : V1_ROOT;
  if (!v2 && !existsSync(join(V1_ROOT, 'memory.limit_in_bytes'))) throw new Error('SCALE_MEMORY_LIMIT_MIB: no memory cgroup controller (neither cgroup v2 with memory nor v1 /sys/fs/cgroup/memory)');
  const group = join(root, `tessera-bench-${pid}`);
  mkdirSync(group);
  const release = (): void => {
    try {
      if (existsSync(`/proc/${pid}`)) writeFileSync(join(root, 'cgroup.procs'), String(pid));
      rmdirSync(group);
    } catch {
      // The process may have exited meanwhile; a group that cannot go is left for the next boot.
    }
  };
  cleanup.addProcess(`memory cgroup ${group}`, async () => release(), release);
  const bytes = limitMiB * 1024 * 1024;
  if (v2) {
    writeFileSync(join(group, 'memory.max'), String(bytes));
  } else {
    writeFileSync(join(group, 'memory.limit_in_bytes'), String(bytes));
    try {
      writeFileSync(join(group, 'memory.move_charge_at_immigrate'), '3');
    } catch {
      // Kernels that deprecated it refuse the write: the pages already touched stay charged where they are.
    }
  }
  writeFileSync(join(group, 'cgroup.procs'), String(pid));
  const read = (file: string): number | undefined => (existsSync(join(group, file)) ? Number(readFileSync(join(group, file), 'utf8').trim()) : undefined);
  return {
    usage: () => ({
      current: (v2 ? read('memory.current') : read('memory.usage_in_bytes')) ?? 0,
      peak: v2 ? read('memory.peak') : read('memory.max_usage_in_bytes'),
    }),
  };
}
