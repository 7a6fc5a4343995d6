# tui/elf.mk: the ELF drill-down in the exmtop program (batch and views).
exmtop_SOURCES += \
	tui/batch_elf.c tui/batch_elf.h \
	tui/view_elf.c tui/view_elf.h
