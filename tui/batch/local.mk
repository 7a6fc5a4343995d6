# tui/batch/: batch output. drive.c runs the table of modes and the one
# batch loop (the live mode hands over to tui/screen/ui.c), batch.c prints
# text, CSV, JSON and OpenMetrics, batch_elf.c and batch_strip.c the ELF
# tables and page strips, diff.c --diff.
exmtop_SOURCES += \
	tui/batch/drive.c tui/batch/drive.h \
	tui/batch/batch.c tui/batch/batch.h \
	tui/batch/batch_strip.c \
	tui/batch/diff.c tui/batch/diff.h \
	tui/batch/batch_elf.c tui/batch/batch_elf.h
