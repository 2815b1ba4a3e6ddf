## lib/local.mk: libdice, the code the tools share.  Each group of files
## is added on its own so that new parts land without touching old lines.

noinst_LIBRARIES += lib/libdice.a
lib_libdice_a_CFLAGS = $(AM_CFLAGS) $(LIBCRYPTO_CFLAGS) $(LIBCURL_CFLAGS)
DICE_LIBS = lib/libdice.a $(JANSSON_LIBS) $(LIBCRYPTO_LIBS) -lpthread

lib_libdice_a_SOURCES = \
	lib/system.h \
	lib/alloc.c lib/alloc.h \
	lib/xalloc.c lib/xalloc.h \
	lib/closeout.c lib/closeout.h \
	lib/datadir.c lib/datadir.h \
	lib/fileio.c lib/fileio.h \
	lib/jsonl.c lib/jsonl.h \
	lib/msg.c lib/msg.h \
	lib/outfile.c lib/outfile.h \
	lib/numarg.c lib/numarg.h \
	lib/options.c lib/options.h \
	lib/progname.c lib/progname.h \
	lib/record.c lib/record.h \
	lib/resume.c lib/resume.h \
	lib/secrets.c lib/secrets.h \
	lib/sha256.c lib/sha256.h \
	lib/shard.c lib/shard.h \
	lib/template.c lib/template.h

# dice-sample
lib_libdice_a_SOURCES += \
	lib/extract.c lib/extract.h \
	lib/http.c lib/http.h \
	lib/proc.c lib/proc.h

# dice-score
lib_libdice_a_SOURCES += \
	lib/stats.c lib/stats.h \
	lib/strmap.c lib/strmap.h \
	lib/jsonpick.c lib/jsonpick.h

# dice-split; the Python structure the robust check reads too
lib_libdice_a_SOURCES += \
	lib/pylex.c lib/pylex.h \
	lib/pymod.c lib/pymod.h

# dice-compile and dice-check: the run of a record, and the modes
lib_libdice_a_SOURCES += \
	lib/sandbox.c lib/sandbox.h \
	lib/scheduler.c lib/scheduler.h \
	lib/harness.c lib/harness.h \
	lib/harness-end.c lib/harness-end.h \
	lib/harness-compile.c \
	lib/harness-check.c

# dice-check: deception verdicts (robust check)
lib_libdice_a_SOURCES += \
	lib/deception.c lib/deception.h

# dice-check's robust check: static analysis of a candidate
lib_libdice_a_SOURCES += \
	lib/strset.c lib/strset.h \
	lib/cxxscan.c lib/cxxscan.h \
	lib/pyscan.c lib/pyscan.h

# dice-time
lib_libdice_a_SOURCES += \
	lib/harness-time.c \
	lib/reftimes.c lib/reftimes.h

# progress on standard error, for every long-running tool
lib_libdice_a_SOURCES += \
	lib/progress.c lib/progress.h
