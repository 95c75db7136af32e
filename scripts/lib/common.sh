# SPDX-License-Identifier: MIT
# Shared settings for the vdla scripts. Source it; do not run it.
#
# Heavy artefacts (QEMU build, guest kernel, initramfs pieces) live in a cache
# outside the work tree so that a fresh clone reuses them and `make clean` does
# not throw away a 5-minute QEMU build.

VDLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VDLA_CACHE="${VDLA_CACHE:-/var/cache/vdla}"
VDLA_BUILD="${VDLA_BUILD:-$VDLA_ROOT/build}"

QEMU_VERSION="10.0.2"
QEMU_TARBALL="qemu_${QEMU_VERSION}+ds.orig.tar.xz"
QEMU_TARBALL_SHA256="0901da33844a331bf8b3602b9c1fbd178e60b737c8e3ade678255bd090c9b9f1"

# The guest kernel chosen by setup-deps is recorded here so that every later
# script (Kbuild, initramfs, boot) agrees on one version.
GUEST_KERNEL_FILE="$VDLA_CACHE/guest-kernel-version"

log() { printf '[vdla] %s\n' "$*" >&2; }
die() { printf '[vdla] error: %s\n' "$*" >&2; exit 1; }

guest_kernel_version() {
	[[ -s "$GUEST_KERNEL_FILE" ]] ||
		die "no guest kernel recorded in $GUEST_KERNEL_FILE; run 'scripts/setup-deps' (as root) first"
	cat "$GUEST_KERNEL_FILE"
}

guest_kernel_dir() { echo "$VDLA_CACHE/kernel/$(guest_kernel_version)"; }
qemu_build_dir() { echo "$VDLA_CACHE/qemu-$QEMU_VERSION/build"; }
