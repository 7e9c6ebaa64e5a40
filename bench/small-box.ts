/**
 * The smallest box, in the bench: a process run on one core with half its time, as a stand-in for one
 * core of a Raspberry Pi 4-class box. `BENCH_BOX` picks where the daemon-in-its-own-process rows run:
 * `two-cores` (the default: the machine as it is), `small` (only the smallest box) or `both`.
 *
 * How the quota is set, first that works:
 * - `systemd-run --scope -p CPUQuota=50% -p AllowedCPUs=0` (a machine booted with systemd);
 * - a cgroup of our own, made under the cgroup file system (v2 `cpu.max`, or v1 `cpu.cfs_quota_us`), the
 *   process moved into it before it starts the program, pinned to CPU 0 with `taskset`;
 * - else `taskset` alone: one core, no quota. The tables say which one ran, so a figure is never read
 *   as the small box's when it was not.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface Box {
  /** For the tables: `two cores` or `smallest box`. */
  name: string
  /** How it was made, for the tables. */
  how: string
  /** The command line that runs `command args` in the box. */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] }
}

/** The stand-in's share: half of one core (the quota per period, µs). */
const QUOTA = { periodUs: 100_000, quotaUs: 50_000, cpu: 0 } as const

const twoCores: Box = {
  name: 'two cores',
  how: 'the machine as it is',
  wrap: (command, args) => ({ command, args: [...args] }),
}

/** The boxes `BENCH_BOX` asks for, in order. */
export function benchBoxes(): Box[] {
  const wanted = process.env.BENCH_BOX ?? 'two-cores'
  if (wanted === 'two-cores') return [twoCores]
  if (wanted === 'small') return [smallBox()]
  if (wanted === 'both') return [twoCores, smallBox()]
  throw new Error(`BENCH_BOX=${wanted}: expected two-cores, small or both`)
}

let made: Box | undefined

/** The smallest box (made once per bench run). */
export function smallBox(): Box {
  made ??= viaSystemd() ?? viaCgroup() ?? viaTaskset()
  return made
}

const ran = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: 'ignore' }).status === 0

function viaSystemd(): Box | undefined {
  const props = [
    '--scope',
    '--quiet',
    `-p`,
    `CPUQuota=${QUOTA.quotaUs / QUOTA.periodUs / 0.01}%`,
    '-p',
    `AllowedCPUs=${QUOTA.cpu}`,
  ]
  if (!ran('systemd-run', [...props, 'true'])) return undefined
  return {
    name: 'smallest box',
    how: `systemd-run ${props.join(' ')}`,
    wrap: (command, args) => ({ command: 'systemd-run', args: [...props, command, ...args] }),
  }
}

/** A cgroup of our own with the CPU quota, or undefined when the cgroup file system is not writable. */
function viaCgroup(): Box | undefined {
  const name = `panelbridge-bench-${process.pid}`
  const tries: { dir: string; set: (dir: string) => void; kind: string }[] = [
    {
      dir: '/sys/fs/cgroup',
      kind: 'cgroup v2 cpu.max',
      set: (dir) => writeFileSync(join(dir, 'cpu.max'), `${QUOTA.quotaUs} ${QUOTA.periodUs}`),
    },
    {
      dir: '/sys/fs/cgroup/cpu',
      kind: 'cgroup v1 cpu.cfs_quota_us',
      set: (dir) => {
        writeFileSync(join(dir, 'cpu.cfs_period_us'), String(QUOTA.periodUs))
        writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(QUOTA.quotaUs))
      },
    },
  ]
  for (const t of tries) {
    if (t.kind.includes('v2') && !readable(join(t.dir, 'cgroup.controllers')).split(/\s+/).includes('cpu')) continue
    if (!existsSync(t.dir)) continue
    const dir = join(t.dir, name)
    try {
      mkdirSync(dir)
      t.set(dir)
    } catch {
      try {
        rmdirSync(dir)
      } catch {
        // never made
      }
      continue
    }
    // The group goes when the bench ends (its processes are gone by then; a leftover is only an empty folder).
    process.once('exit', () => {
      try {
        rmdirSync(dir)
      } catch {
        // still in use, or gone
      }
    })
    return {
      name: 'smallest box',
      how: `${t.kind} ${QUOTA.quotaUs}/${QUOTA.periodUs} µs, taskset -c ${QUOTA.cpu}`,
      wrap: (command, args) => ({
        command: 'sh',
        // $0 the group, $1 the core, then the program: join the group, then become the program on that core.
        args: [
          '-c',
          'echo $$ > "$0/cgroup.procs" && cpu=$1 && shift && exec taskset -c "$cpu" "$@"',
          dir,
          String(QUOTA.cpu),
          command,
          ...args,
        ],
      }),
    }
  }
  return undefined
}

function viaTaskset(): Box {
  return {
    name: 'smallest box',
    how: `taskset -c ${QUOTA.cpu} only: one whole core, no quota (no systemd, no writable cgroup)`,
    wrap: (command, args) => ({ command: 'taskset', args: ['-c', String(QUOTA.cpu), command, ...args] }),
  }
}

function readable(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
