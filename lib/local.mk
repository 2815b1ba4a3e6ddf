## lib/local.mk: libdice, the code the tools share, in five groups (README's
## Layout names them too): a new file goes in the group of its idea.

noinst_LIBRARIES += lib/libdice.a
lib_libdice_a_CFLAGS = $(AM_CFLAGS) $(LIBCRYPTO_CFLAGS) $(LIBCURL_CFLAGS)
DICE_LIBS = lib/libdice.a $(JANSSON_LIBS) $(LIBCRYPTO_LIBS) -lpthread

# Records and I/O: JSON lines and the record contract, files, the data
# directory, templates, HTTP, digests, and the tables and estimators
lib_libdice_a_SOURCES = \
	lib/system.h \
	lib/jsonl.c lib/jsonl.h \
	lib/jsonpick.c lib/jsonpick.h \
	lib/hexdigits.c lib/hexdigits.h \
	lib/record.c lib/record.h \
	lib/fileio.c lib/fileio.h \
	lib/outfile.c lib/outfile.h \
	lib/closeout.c lib/closeout.h \
	lib/datadir.c lib/datadir.h \
	lib/template.c lib/template.h \
	lib/http.c lib/http.h \
	lib/sha256.c lib/sha256.h \
	lib/strmap.c lib/strmap.h \
	lib/strset.c lib/strset.h \
	lib/stats.c lib/stats.h

# Options and messages: the program name, diagnostics, the shared options,
# numeric option values, secrets and redaction, dying allocation
lib_libdice_a_SOURCES += \
	lib/progname.c lib/progname.h \
	lib/msg.c lib/msg.h \
	lib/options.c lib/options.h \
	lib/numarg.c lib/numarg.h \
	lib/secrets.c lib/secrets.h \
	lib/xalloc.c lib/xalloc.h

# Python source analysis: the candidate in a completion, the tokenizer, a
# module's outline, C++/CUDA facts, the static deception flags, the verdict
lib_libdice_a_SOURCES += \
	lib/extract.c lib/extract.h \
	lib/pylex.c lib/pylex.h \
	lib/pymod.c lib/pymod.h \
	lib/cxxscan.c lib/cxxscan.h \
	lib/pyscan.c lib/pyscan.h \
	lib/deception.c lib/deception.h

# Running candidates: the sandbox, child processes, the workers, the
# Python harness's jobs, its modes (compile, check, time) and results,
# reference times
lib_libdice_a_SOURCES += \
	lib/sandbox.c lib/sandbox.h \
	lib/proc.c lib/proc.h \
	lib/scheduler.c lib/scheduler.h \
	lib/harness.c lib/harness.h \
	lib/harness-end.c lib/harness-end.h \
	lib/harness-compile.c \
	lib/harness-check.c \
	lib/harness-time.c \
	lib/reftimes.c lib/reftimes.h

# Cluster: the job's allocation, the GPU locks, --shard, progress, --resume
lib_libdice_a_SOURCES += \
	lib/alloc.c lib/alloc.h \
	lib/gpulock.c lib/gpulock.h \
	lib/shard.c lib/shard.h \
	lib/progress.c lib/progress.h \
	lib/resume.c lib/resume.h
