# pkg/: what an installed exmtop has besides the program and its manual
# (tui/local.mk): the bash completion, the systemd units, and, with
# --with-dkms-source, the module's source for dkms. `make install
# DESTDIR=...` is what debian/rules uses.

# The completion comes from the program's option table, as the manual does.
bashcompdir = $(datadir)/bash-completion/completions
bashcomp_DATA = pkg/bash-completion/exmtop
CLEANFILES += pkg/bash-completion/exmtop
pkg/bash-completion/exmtop: exmtop$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) pkg/bash-completion && \
	./exmtop$(EXEEXT) --completion bash > $@.tmp && mv $@.tmp $@

# The units: the textfile collector's service and timer and the recorder
# (shipped, enabled by no one). The services name the installed program
# (@bindir@) and Debian's node_exporter textfile directory
# (@localstatedir@/lib/prometheus/node-exporter).
pkg_units = pkg/exmtop-textfile.service pkg/exmtop-record.service
if HAVE_SYSTEMD_UNITS
systemdsystemunit_DATA = $(pkg_units)
dist_systemdsystemunit_DATA = pkg/exmtop-textfile.timer
else
EXTRA_DIST += pkg/exmtop-textfile.timer
endif
EXTRA_DIST += pkg/exmtop-textfile.service.in pkg/exmtop-record.service.in
CLEANFILES += $(pkg_units)
$(pkg_units): Makefile
	$(AM_V_GEN)$(MKDIR_P) pkg && sed -e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@localstatedir[@]|$(localstatedir)|g' \
	$(srcdir)/$@.in > $@.tmp && mv $@.tmp $@
pkg/exmtop-textfile.service: $(srcdir)/pkg/exmtop-textfile.service.in
pkg/exmtop-record.service: $(srcdir)/pkg/exmtop-record.service.in

# The module's source as dkms wants it: $(dkmssourcedir)/exmap-VERSION
# with a dkms.conf of this version (kernel/dkms.conf with its
# PACKAGE_VERSION set from configure.ac's).
if DKMS_SOURCE
exmapsrcdir = $(dkmssourcedir)/exmap-$(VERSION)
exmapsrc_DATA = kernel/Kbuild kernel/Makefile kernel/exmap.c \
	kernel/exmap_compat.h kernel/exmap_abi.h pkg/dkms.conf
uninstall-hook: uninstall-exmapsrc-dir
uninstall-exmapsrc-dir:
	-test ! -d '$(DESTDIR)$(exmapsrcdir)' || rmdir '$(DESTDIR)$(exmapsrcdir)'
endif
.PHONY: uninstall-exmapsrc-dir
CLEANFILES += pkg/dkms.conf
pkg/dkms.conf: $(srcdir)/kernel/dkms.conf Makefile
	$(AM_V_GEN)$(MKDIR_P) pkg && sed \
	-e 's|^PACKAGE_VERSION=.*|PACKAGE_VERSION="$(VERSION)"|' \
	$(srcdir)/kernel/dkms.conf > $@.tmp && mv $@.tmp $@

# The tree's own scripts (scripts/run, scripts/test, CI's entry).
EXTRA_DIST += scripts/deps.sh scripts/run scripts/test .ci/run

# distcheck builds and checks the tarball as a user would, without root
# or a terminal: only the offline tests (see --disable-live-tests).
AM_DISTCHECK_CONFIGURE_FLAGS = --disable-live-tests --with-dkms-source
