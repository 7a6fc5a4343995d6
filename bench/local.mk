# bench/: benchmarks, run by hand (not by make check): see bench/snapshot.sh.
EXTRA_DIST += bench/snapshot.sh bench/cpu_live.sh bench/workload.sh \
	bench/workload.c bench/idle.c bench/pmfloor.c bench/record.sh bench/kmod.sh \
	bench/readme.sh bench/peak.sh
# bench/record.sh's recorder (until exmtop's command line records).
noinst_PROGRAMS += bench/exmrecord
bench_exmrecord_SOURCES = bench/record.c
bench_exmrecord_LDADD = $(CORE_LIBS)
# what the groups' exclusive figures cost beside a snapshot (issue 21)
noinst_PROGRAMS += bench/exmexcl
bench_exmexcl_SOURCES = bench/excl.c
bench_exmexcl_LDADD = $(CORE_LIBS)

# The figures of README.md's "How fast", measured on this machine now
# (as root; about 4 minutes).
bench: exmtop$(EXEEXT) bench/exmrecord$(EXEEXT)
	EXMTOP=./exmtop$(EXEEXT) EXMRECORD=./bench/exmrecord$(EXEEXT) \
		$(srcdir)/bench/readme.sh
.PHONY: bench
