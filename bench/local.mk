# bench/: benchmarks, run by hand (not by make check): see bench/snapshot.sh.
EXTRA_DIST += bench/snapshot.sh bench/cpu_live.sh bench/workload.sh bench/kmod.sh \
	bench/workload.c
