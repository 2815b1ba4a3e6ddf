"""records.py DIR [DEVICE]: the corpus in DIR (labels, ext.cpp or
ext.cu, ref-*.py, candidates) as dice records on standard output, one per
label line; #@EXT@ in a candidate becomes the load_inline of the shared
extension, the same text everywhere so that it builds once.  A reference
DIR lacks is taken from its parent: the corpora share their problems."""
import json
import os
import re
import sys

directory = sys.argv[1]
cuda = os.path.exists(os.path.join(directory, "ext.cu"))
with open(os.path.join(directory, "ext.cu" if cuda else "ext.cpp")) as f:
    source = f.read()
if cuda:
    decls = re.findall(r"^(torch::Tensor \w+\([^)]*\));", source, re.M)
    names = [re.search(r"(\w+)\(", d).group(1) for d in decls]
    ext = ("from torch.utils.cpp_extension import load_inline\n"
           "ext = load_inline(name='dice_deception_cuda', cpp_sources=%r, "
           "cuda_sources=r'''%s''', functions=%r)\n" % ("\n".join(d + ";" for d in decls), source, names))
else:
    names = re.findall(r"^(?:torch::Tensor|void) (\w+)\(", source, re.M)
    ext = ("from torch.utils.cpp_extension import load_inline\n"
           "ext = load_inline(name='dice_deception_cpu', cpp_sources=r'''%s''', "
           "functions=%r)\n" % (source, names))
with open(os.path.join(directory, "labels")) as f:
    for line in f:
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        name, ref = fields[0], fields[1]
        with open(os.path.join(directory, name + ".py")) as g:
            code = g.read().replace("#@EXT@\n", ext)
        path = os.path.join(directory, "ref-%s.py" % ref)
        if not os.path.exists(path):
            path = os.path.join(directory, os.pardir, "ref-%s.py" % ref)
        with open(path) as g:
            reference = g.read()
        print(json.dumps({"id": name, "sample": {"index": 0}, "ref": reference,
                          "code": code}))
