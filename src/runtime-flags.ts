/**
 * V8 settings of the daemon's process, set when this module is evaluated: `src/cli.ts` imports it
 * first, before any module that could compile WebAssembly. (Flags that must be set before the heap
 * exists, `--max-semi-space-size`, are on cli.ts's `#!` line instead.)
 *
 * `--liftoff-only`: undici parses HTTP replies with llhttp, compiled to WebAssembly on the first
 * connection. By default V8 compiles it twice, with Liftoff at once and then with TurboFan, and that
 * TurboFan compile takes about 35 MB of compiler memory for a moment, which the C allocator keeps in
 * the process afterwards: measured, the idle daemon's resident memory went from 84-89 MB to 76-79 MB
 * with this flag. Liftoff's code parses the application's short replies in microseconds; `npm run
 * bench daemon` reports the jog round trip with it.
 */
import { setFlagsFromString } from 'node:v8'

export const RUNTIME_V8_FLAGS = ['--liftoff-only'] as const

for (const flag of RUNTIME_V8_FLAGS) setFlagsFromString(flag)
