# shellcheck shell=bash
# Sourced by scripts/check-deb and scripts/check-first-start: a fresh minimal Debian 12 to run in.
# A debootstrapped bookworm (minbase) is made once and cached, never modified, in
# $ATTNLAB_CHROOT_CACHE (default /var/tmp/attnlab-bookworm-base); each run copies it to a new folder,
# mounts /proc, /sys and /dev there, and removes it all on exit. Needs root and a Debian mirror
# ($ATTNLAB_MIRROR, default deb.debian.org).
MIRROR=${ATTNLAB_MIRROR:-http://deb.debian.org/debian}
BASE=${ATTNLAB_CHROOT_CACHE:-/var/tmp/attnlab-bookworm-base}

# chroot_start: sets ROOT to a fresh copy of the cached bookworm, ready for in_root.
chroot_start() {
  if [ "$(id -u)" -ne 0 ]; then echo "$0 needs root (debootstrap, chroot, mount)" >&2; exit 2; fi
  if [ ! -x "$BASE/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap
    echo "== debootstrap bookworm (minbase) into $BASE"
    rm -rf "$BASE.partial"
    debootstrap --variant=minbase bookworm "$BASE.partial" "$MIRROR" >/dev/null
    mv "$BASE.partial" "$BASE"
  fi
  ROOT=$(mktemp -d /var/tmp/attnlab-check.XXXXXX)
  trap chroot_cleanup EXIT
  cp -a "$BASE/." "$ROOT/"
  mount -t proc proc "$ROOT/proc"
  mount -t sysfs sys "$ROOT/sys"
  mount --bind /dev "$ROOT/dev"
  mount --bind /dev/pts "$ROOT/dev/pts"
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
  echo "deb $MIRROR bookworm main" >"$ROOT/etc/apt/sources.list"
}

chroot_cleanup() {
  # Whatever this run started inside the chroot (an Xvfb still shutting down) holds /dev: end those
  # processes, found by their root folder, then unmount (lazily if still busy) and remove.
  for p in /proc/[0-9]*; do
    if [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ]; then kill -9 "${p#/proc/}" 2>/dev/null || true; fi
  done
  sleep 0.5
  for m in dev/pts dev proc sys; do umount "$ROOT/$m" 2>/dev/null || umount -l "$ROOT/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$ROOT" || true
}

# in_root COMMAND...: runs it in the chroot as root, with a clean environment and no display.
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
