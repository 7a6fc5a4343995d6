# tests/pkg/run: the Debian packages built from a clean clone, linted,
# installed, run and purged. Run by scripts/test, not by make check: it
# needs root and apt-get and builds the tree twice, in about three minutes.
# debian/: the packaging it builds.
EXTRA_DIST += tests/pkg/run \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/exmtop.install debian/exmtop.postrm \
	debian/exmap-dkms.install debian/exmtop.docs debian/exmap-dkms.docs
