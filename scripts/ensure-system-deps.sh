#!/usr/bin/env bash
# First step of `npm test`: makes sure this machine has what the tests need outside node_modules.
# Nothing missing: exits 0 in milliseconds, without calling apt. Something missing on Debian: installs
# it with apt-get when it can (root, or passwordless sudo), else stops at once with the one line to run.
# Not Debian: names what is needed and stops.
#
# PANELBRIDGE_NO_APT=1 never installs (stops with the line instead), for a root shell that must not
# change the system; it is also how the "cannot install" path is tried without dropping root.
set -euo pipefail

# The one list. Each entry: Debian package | probe | why the tests need it.
# A probe is "exe PATH" (an executable file), "lib SONAME" (a shared library the loader finds) or
# "file PATH" (a data file, such as a font); it checks the thing itself rather than the package, so it
# also holds where a package was renamed.
REQUIREMENTS=(
  'chromium|exe /usr/bin/chromium|the web surface browser tests launch it (test/surfaces/web/browser.test.ts)'
  'libusb-1.0-0|lib libusb-1.0.so.0|the prebuilt node-hid binary links it'
  'libudev1|lib libudev.so.1|the prebuilt node-hid and usb binaries link it'
  'systemd|exe /usr/bin/systemd-analyze|test/ops/systemd-unit.test.ts runs systemd-analyze verify on systemd/panelbridge.service'
  'prometheus|exe /usr/bin/promtool|test/ops/dashboard.test.ts runs promtool check/test rules on ops/prometheus and the Grafana dashboard expressions'
  'libasound2|lib libasound.so.2|the prebuilt @julusian/midi binary links it (test/surfaces/midi/julusian.test.ts)'
  'fonts-noto-cjk|file /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc|CJK labels on keys fall back to it (test/surfaces/render/fonts.test.ts; src/surfaces/render/fonts.ts)'
  'fonts-noto-color-emoji|file /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf|emoji labels on keys fall back to it (test/surfaces/render/fonts.test.ts; src/surfaces/render/fonts.ts)'
)

# The loader's library list, read once. Why the fixed paths: a non-root PATH often lacks /sbin, where
# ldconfig lives. Why a variable, not a pipe into grep -q: grep quitting early would fail the pipe.
read_libraries() {
  local c
  libraries=
  for c in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
    if command -v "$c" >/dev/null 2>&1; then
      libraries=$("$c" -p 2>/dev/null || true)
      return
    fi
  done
}

present() {
  local kind=$1 what=$2
  case $kind in
    exe) [ -x "$what" ] ;;
    lib) grep -q "^[[:space:]]*${what//./\\.} " <<<"$libraries" ;;
    file) [ -f "$what" ] ;;
    *)
      echo "system-deps: unknown probe kind '$kind'" >&2
      exit 2
      ;;
  esac
}

missing=()
reasons=()
check_all() {
  read_libraries
  missing=()
  reasons=()
  local entry pkg probe why
  for entry in "${REQUIREMENTS[@]}"; do
    IFS='|' read -r pkg probe why <<<"$entry"
    # shellcheck disable=SC2086 # the probe is two words on purpose
    if ! present $probe; then
      missing+=("$pkg")
      reasons+=("  $pkg (${probe#* } not found): $why")
    fi
  done
}

check_all
[ ${#missing[@]} -eq 0 ] && exit 0

say() { echo "system-deps: $*" >&2; }
say "the tests need what this machine lacks:"
printf '%s\n' "${reasons[@]}" >&2

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
  say "this is not a Debian-like system (no apt-get/dpkg): install the equivalents of the Debian"
  say "packages above with your system's package manager, then run the tests again."
  exit 1
fi

if [ "$(id -u)" = 0 ]; then sudo=''; else sudo='sudo '; fi
install_line="${sudo}apt-get update && ${sudo}apt-get install -y ${missing[*]}"
if [ "${PANELBRIDGE_NO_APT:-}" = 1 ]; then
  why_not='PANELBRIDGE_NO_APT=1'
elif [ "$(id -u)" = 0 ]; then
  as=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as=(sudo -n)
else
  why_not='not root, no passwordless sudo'
fi
if [ -n "${why_not:-}" ]; then
  say "not installing them ($why_not). Run this, then the tests again:"
  echo "$install_line" >&2
  exit 1
fi

say "installing: ${missing[*]}"
# Why the lock time-out: on a shared machine another apt may hold the lock for a while.
apt=("${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -q)
if ! { "${apt[@]}" update && "${apt[@]}" install -y "${missing[@]}"; }; then
  say "apt-get failed; run this yourself, then the tests again:"
  echo "$install_line" >&2
  exit 1
fi

check_all
if [ ${#missing[@]} -gt 0 ]; then
  say "still missing after apt-get install:"
  printf '%s\n' "${reasons[@]}" >&2
  exit 1
fi
say "installed: everything the tests need is present"
