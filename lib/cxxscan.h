/* cxxscan.h: the facts of a candidate's C++/CUDA source strings, found
   by a deliberately small scanner (comments, literals, braces,
   identifiers): kernels, launches, host functions and what they call,
   exports, and the uses of things a rule may care about (libraries,
   threads, streams, half precision).  It decides nothing: pyscan's
   rules turn the facts into flags.  */
#ifndef DICE_CXXSCAN_H
#define DICE_CXXSCAN_H

#include "system.h"

#include "strset.h"

/* A function defined in the sources (host or device).  */
struct dice_cxx_func
{
  char *name;
  unsigned long line;           /* of the Python module */
  bool launches;                /* a kernel launch in its own body */
  struct dice_strset callees;   /* the plain calls in its body */
};

/* An export of a PYBIND11 module: m.def("NAME", &FUNC) ("" for a
   lambda).  */
struct dice_cxx_export
{
  char *name, *func;
};

enum dice_cxx_use_kind
{
  DICE_CXX_LIBRARY_CALL,        /* cublas*, cudnn*, at::matmul, x.mm() ... */
  DICE_CXX_THREAD_START,        /* std::thread, pthread_create, fork */
  DICE_CXX_STREAM_CREATE,       /* cudaStreamCreate*, getStreamFromPool */
  DICE_CXX_STREAM_LAUNCH,       /* <<<..., s>>> on a stream not the current */
  DICE_CXX_HALF_TYPE            /* __half, bfloat16, kHalf ... as a type */
};

/* One use, in the order found; TEXT names it ("cublasSgemm", "at::mm",
   "tensor method .mm()", the stream expression, "__half").  */
struct dice_cxx_use
{
  enum dice_cxx_use_kind kind;
  unsigned long line;
  char text[160];
};

struct dice_cxx_toks;

/* What all the scanned sources hold together.  Zero it to start.  */
struct dice_cxx
{
  struct dice_strset kernels;   /* __global__ names */
  struct dice_strset launched;  /* kernels launched from some function */
  struct dice_strset exported;  /* the names of EXPORTS, unique */
  struct dice_cxx_func *funcs;
  size_t nfuncs;
  struct dice_cxx_export *exports;
  size_t nexports;
  struct dice_cxx_use *uses;
  size_t nuses;
  bool oom;
  struct dice_cxx_toks *toks;   /* scratch, kept between sources */
};

/* Add the facts of one source string TEXT (LEN bytes) whose literal
   starts on Python line LINE.  Returns 0, or -1 when memory ran out
   (X->oom is then set and the facts are incomplete).  */
int dice_cxx_scan (struct dice_cxx *x, const char *text, size_t len,
                   unsigned long line);

/* The function named NAME, or NULL.  */
struct dice_cxx_func *dice_cxx_find_func (const struct dice_cxx *x,
                                          const char *name);

/* Whether F launches a kernel itself or through the functions it calls,
   following at most DEPTH calls.  */
bool dice_cxx_func_launches (const struct dice_cxx *x,
                             const struct dice_cxx_func *f, int depth);

/* The function an export named NAME calls ("" for a lambda), or NAME
   itself when nothing exports it under that name.  */
const char *dice_cxx_exported_func (const struct dice_cxx *x,
                                    const char *name);

void dice_cxx_free (struct dice_cxx *x);

/* Whether C may continue a C identifier.  */
bool dice_cxx_ident_char (int c);

/* The __global__ names in TEXT, appended to OUT.  Returns 0, or -1 when
   memory ran out.  */
int dice_cxx_kernel_names (const char *text, size_t len,
                           struct dice_strset *out);

#endif
