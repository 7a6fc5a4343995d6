# tests/kmod/: the kernel module's QEMU test, run by scripts/test (not by
# make check: it boots several kernels); kernel/: the module itself.
EXTRA_DIST += \
	kernel/README.md kernel/Kbuild kernel/Makefile kernel/dkms.conf \
	kernel/exmap.c kernel/exmap_compat.h kernel/exmap_abi.h \
	tests/kmod/run tests/kmod/check.py tests/kmod/guest-init \
	tests/kmod/guest-bench.sh tests/kmod/kmcheck.c
