#!/usr/bin/env bash
# deps.sh - install the Debian packages exmtop needs (sourced by run/test).
#   exm_install build        what building and running needs
#   exm_install test         plus what the whole test suite needs
# Installs only what is missing; runs apt-get update once before installing.

EXM_BUILD_PKGS="build-essential autoconf automake pkg-config libncurses-dev libelf-dev libsqlite3-dev zlib1g-dev"
EXM_TEST_PKGS="libcriterion-dev sqlite3 busybox-static tmux python3 smem smemstat valgrind clang libclang-rt-14-dev clang-format-14 g++ binutils util-linux procps htop prometheus"
# the kernel module's QEMU test (tests/kmod/run): kernels and headers it
# fetches itself, into the build directory (and, for kernels built with
# another gcc, an mmdebstrap root of the release that has it)
EXM_TEST_PKGS="$EXM_TEST_PKGS qemu-system-x86 cpio kmod dwarves xz-utils mmdebstrap"
# the Debian packages' test (tests/pkg/run): building, checking and
# installing them
EXM_TEST_PKGS="$EXM_TEST_PKGS git debhelper dh-dkms dkms lintian man-db"

exm_install() {
	local want="$EXM_BUILD_PKGS" missing=() p
	[ "${1:-build}" = test ] && want="$want $EXM_TEST_PKGS"
	for p in $want; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "exmtop: missing packages: ${missing[*]} (run as root or install them)" >&2
		return 1
	fi
	echo "exmtop: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || return 1
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || return 1
}

# Configure and build in $2 (relative to the source tree $1) with extra
# configure arguments after that.
exm_build() {
	local src="$1" dir="$2"
	shift 2
	[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null) || return 1
	mkdir -p "$src/$dir" || return 1
	(cd "$src/$dir" && { [ -f Makefile ] || "$src/configure" -q "$@"; } &&
		make -s -j"$(nproc)") || return 1
}

# Configure $2 (relative to the source tree $1) afresh with exactly the
# configure arguments after that, then build. configure always runs again,
# so that it sees what is installed now (a build/ that scripts/run
# configured before Criterion was installed ran no unit program); a build
# configured with other arguments is cleaned first. Files that are not
# build products (tests/kmod/run's kmod-cache) are kept.
exm_build_fresh() {
	local src="$1" dir="$2" want
	shift 2
	[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null) || return 1
	mkdir -p "$src/$dir" || return 1
	want=$(printf '%q ' "$@")
	(cd "$src/$dir" &&
		{ [ ! -f Makefile ] || [ "$(cat .exm-configure-args 2>/dev/null)" = "$want" ] ||
			make -s clean >/dev/null; } &&
		rm -f .exm-configure-args && "$src/configure" -q "$@" &&
		printf '%s' "$want" >.exm-configure-args &&
		make -s -j"$(nproc)") || return 1
}
