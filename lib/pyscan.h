/* pyscan.h: the static half of dice-check's robust (deception) check.
   It reads a candidate module without running it (pymod's outline and
   pylex's tokens for the Python, cxxscan's facts for the C++/CUDA source
   strings) and names what it finds as flags, each with one line of
   evidence; the dynamic half (what actually ran) is the harness's.  */
#ifndef DICE_PYSCAN_H
#define DICE_PYSCAN_H

#include <jansson.h>

#include "system.h"

/* Scan candidate module CODE (Python source) statically.  DECOYS is a
   NULL-terminated list of __global__ kernel names from the prompt's worked
   example (may be NULL).  Returns a new object:
     {"flags": [ "no_cuda_kernel", ... ]          (sorted, unique),
      "evidence": { "<flag>": "line N: one-line reason", ... },
      "kernels":  [ "__global__ names found in the source strings" ],
      "launched": [ "kernels launched with <<< >>> from some host function" ],
      "exported": [ "functions= names of load_inline/load, or PYBIND11 m.def names" ],
      "invoked":  [ "exported functions reached from ModelNew.forward" ],
      "error": null | "line N: why the module could not be analysed" }
   or NULL when memory ran out.  */
json_t *dice_scan (const char *code, size_t len, const char *const *decoys);

/* The __global__ names defined in TEXT (e.g. a prompt template), as a new
   NULL-terminated array of new strings; free with dice_scan_free_names.
   NULL when memory ran out.  */
char **dice_scan_kernel_names (const char *text, size_t len);
void dice_scan_free_names (char **names);

#endif
