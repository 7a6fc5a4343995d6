# core/elf.mk: ELF drill-down (sections and symbols) in the core library.
core_libexmcore_a_SOURCES += \
	core/elf.c core/elf.h \
	core/elfcache.c core/elfcache.h \
	core/elf_table.c core/elf_table.h
# exm_demangle() loads libstdc++'s __cxa_demangle with dlopen on first use
# (Debian: libstdc++6; configure finds dlopen).
