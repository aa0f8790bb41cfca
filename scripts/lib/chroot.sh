# Sourced by scripts/debian11.sh and scripts/cross-arm64.sh: the mounts a
# test chroot needs, each recorded as it is made and undone in reverse
# order by the EXIT trap on every exit path (success, failure, Ctrl-C).
#
#   chroot_mounts ROOT REPO TARGET   mounts into ROOT, and REPO at TARGET
#                                    (a path inside ROOT)

MOUNTS=()
# shellcheck disable=SC2317 # called by the trap
chroot_umount_all() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" || true
	done
}
trap chroot_umount_all EXIT
trap 'exit 130' INT TERM

chroot_mnt() { # mount ARGS... TARGET
	mount "$@"
	MOUNTS+=("${!#}")
}

# /proc: the tests read /proc/self/exe, /proc/PID/stat and children, and
# the launcher and the shim read /proc themselves.  /dev: /dev/null for the
# spawned programs and /dev/pts.  /dev/shm: glibc's sem_open and shm_open.
# /sys: CPU topology (sysconf) for the clock calibration and nproc.  apt
# inside the chroot resolves names with the host's configuration.
chroot_mounts() {
	local root=$1 repo=$2 target=$3
	chroot_mnt -t proc proc "$root/proc"
	chroot_mnt -t sysfs -o ro sysfs "$root/sys"
	chroot_mnt --bind /dev "$root/dev"
	chroot_mnt -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
	chroot_mnt -t tmpfs -o mode=1777 shm "$root/dev/shm"
	mkdir -p "$root$target"
	chroot_mnt --bind "$repo" "$root$target"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

# Installs in the root those of the packages that are missing (a second run
# costs nothing), through the caller's in_root and phase; says which.
#   chroot_install ROOT WHAT PKG...
chroot_install() {
	local root=$1 what=$2 p t
	shift 2
	local missing=()
	for p in "$@"; do
		# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
		in_root "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	t=$SECONDS
	echo "$(basename "$0" .sh): installing ${missing[*]} in the root"
	in_root "$root" apt-get update -q >/dev/null
	in_root "$root" apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null
	in_root "$root" apt-get clean
	phase "$what" "$t"
}
