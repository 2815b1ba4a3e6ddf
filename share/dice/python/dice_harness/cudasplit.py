"""Split a candidate's CUDA source into a device part and a host part.

A cold load_inline of a CUDA candidate costs about a minute, almost all of
it nvcc's front end and host compiler reading torch's headers (412,000
preprocessed lines); the kernels themselves compile in under a second with
CUDA's headers alone.  So a source this module understands is cut in two:

  device part   the kernels and device functions, the declarations they
                share with the host code, and for each kernel the host code
                launches a launch stub (dice_split_launch_<kernel>) that
                does the launch with the kernel's own parameter list; built
                by nvcc with CUDA's headers only;
  host part     the host functions, every `k<<<g, b, s, t>>>(args)` written
                as `dice_split_launch_k(g, b, s, t, args)`, the stubs
                declared where the kernels stood; built by the C++
                compiler beside the bindings, on the precompiled
                torch/extension.h.

The stub takes the kernel's parameter list verbatim, so the arguments
convert exactly as they did at the launch, and launches with the same
configuration (missing shared memory and stream are 0, as in `<<<>>>`).

Anything this cannot do with certainty makes split() return None with the
reason, and the build takes the ordinary path: preprocessor conditions on
__CUDACC__/__NVCC__ (the host part is no longer compiled by nvcc), local
includes, namespaces and extern blocks, template kernels that are
launched, kernels or device symbols that host code names other than in a
launch, device code that names torch, parameters it cannot forward.  A
split build that fails is retried on the ordinary path, whose result is
the one reported.
"""

import re

# load_inline's own implicit headers for cuda.cu, in its order; the host
# part keeps torch/types.h, the device part only the two CUDA ones.
HOST_PREAMBLE = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
# What torch's headers brought into the device code's unit and kernels
# commonly use without including it themselves.
DEVICE_PREAMBLE = "".join("#include <%s>\n" % h for h in (
    "cuda.h", "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cstddef",
    "cstdint", "cfloat", "climits", "cmath", "algorithm", "limits",
    "type_traits", "utility"))

STUB_PREFIX = "dice_split_launch_"

_TORCH_HEADER = re.compile(r"\s*#\s*include\s*<(torch|ATen|c10|pybind11|THC|caffe2)/")
_DEVICE_HEADER = re.compile(r"\s*#\s*include\s*<(cooperative_groups|mma\.h|cub/|cuda/|"
                            r"cuda_pipeline|cuda_awbarrier|cute/|cutlass/|thrust/|crt/|"
                            r"sm_\d+|cuda/barrier|curand_kernel)")
_LOCAL_HEADER = re.compile(r'\s*#\s*include\s*"')
_NVCC_ONLY = re.compile(r"\b__CUDACC\w*|\b__NVCC__\b|\b__CUDACC_RTC__\b")
_TORCH_NAMES = {"torch", "at", "c10", "Tensor", "pybind11", "py"}
_TORCH_PREFIXES = ("TORCH_", "AT_", "C10_", "PYBIND11_")
_DEVICE_WORDS = {"__device__", "__constant__", "__shared__", "__managed__"}
_TYPE_WORDS = {"struct", "class", "union", "enum", "typedef", "using", "static_assert"}
_KEYWORDS = {"int", "float", "double", "char", "long", "short", "unsigned", "signed",
             "bool", "void", "const", "volatile", "auto", "__restrict__", "restrict",
             "struct", "class", "enum", "union", "__grid_constant__"}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>(?:u8|u|U|L)?R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"
              |(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*")
  | (?P<char>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
  | (?P<punct><<<|>>>|::|->|<<=|>>=|[-+*/%&|^!=<>]=|&&|\|\||\+\+|--|<<|>>|.)
""", re.S | re.X)


class Unsure(Exception):
    """The source is outside what the split does with certainty."""


class Split:
    def __init__(self, device, host, kernels):
        self.device = device        # the .cu text, CUDA headers only
        self.host = host            # C++ for main.cpp, after cpp_sources
        self.kernels = kernels      # the launched kernels' names


def _tokens(text):
    """(kind, text, offset) for each token; a preprocessor line, with its
    continuations, is one "pp" token."""
    out = []
    i, n = 0, len(text)
    line_start = True       # only whitespace and comments so far on this line
    while i < n:
        if line_start and text[i] == "#":
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                body = text[i:k]
                if text[k - 1] == "\\" or body.count("/*") > body.count("*/"):
                    j = k + 1
                    continue
                break
            out.append(("pp", text[i:k], i))
            i = k
            continue
        m = _TOKEN.match(text, i)
        if m is None:
            raise Unsure("a character the scanner does not know at offset %d" % i)
        kind = next(g for g in ("ws", "comment", "string", "char", "ident", "num", "punct")
                    if m.group(g) is not None)
        piece = m.group(0)
        if kind == "comment" and piece.startswith("/*") and not piece.endswith("*/"):
            raise Unsure("an unclosed comment")
        if kind in ("ws", "comment"):
            line_start = line_start or "\n" in piece
        else:
            line_start = False
        out.append((kind, piece, i))
        i = m.end()
    return out


class _Item:
    """One top-level piece of the source: a preprocessor line, a
    declaration, a definition."""

    def __init__(self, tokens, start, end):
        self.tokens = tokens        # the significant tokens
        self.start, self.end = start, end
        self.words = [t for k, t, _ in tokens if k == "ident"]

    def head(self):
        """The tokens before the first top-level `{`."""
        depth = 0
        for i, (_, t, _) in enumerate(self.tokens):
            if t in "([":
                depth += 1
            elif t in ")]":
                depth -= 1
            elif t == "{" and depth == 0:
                return self.tokens[:i]
        return self.tokens


def _items(tokens):
    items = []
    current, start = [], None
    depth = 0           # braces, parens and brackets together
    for kind, piece, offset in tokens:
        if kind in ("ws", "comment"):
            continue
        if kind == "pp":
            if not current:
                items.append(_Item([(kind, piece, offset)], offset, offset + len(piece)))
                continue
            # #else inside a definition may leave its brackets counted twice
            if depth == 0 or re.match(r"\s*#\s*(else|elif)\b", piece):
                raise Unsure("a preprocessor line that cuts a declaration")
            current.append((kind, piece, offset))
            continue
        if not current:
            start = offset
        current.append((kind, piece, offset))
        if piece in ("{", "(", "["):
            depth += 1
        elif piece in ("}", ")", "]"):
            depth -= 1
            if depth < 0:
                raise Unsure("unbalanced brackets")
        if depth != 0:
            continue
        end = offset + len(piece)
        if piece == ";":
            items.append(_Item(current, start, end))
            current = []
        elif piece == "}":
            head = _Item(current, start, end).head()
            words = {t for k, t, _ in head if k == "ident"}
            puncts = {t for k, t, _ in head if k == "punct"}
            if words & {"struct", "class", "union", "enum"} or "=" in puncts:
                continue        # `};` or `} name;` ends it
            items.append(_Item(current, start, end))
            current = []
    if current or depth:
        raise Unsure("a declaration that does not end")
    return items


def _names_torch(item):
    return any(w in _TORCH_NAMES or w.startswith(_TORCH_PREFIXES) for w in item.words)


_ATTRIBUTES = {"__launch_bounds__", "__attribute__", "alignas", "__declspec",
               "decltype", "sizeof", "__align__", "__cluster_dims__"}


def _declarator_paren(head):
    """The index in HEAD of the `(` that opens the declared function's
    parameter list, attribute groups skipped."""
    depth = 0
    for i, (kind, t, _) in enumerate(head):
        if t == "(":
            if depth == 0 and i > 0 and head[i - 1][0] == "ident" \
                    and head[i - 1][1] not in _ATTRIBUTES:
                return i
            depth += 1
        elif t == ")":
            depth -= 1
    raise Unsure("a kernel whose parameter list it cannot find")


def _angle_group(tokens, i):
    """The index just past the `>` that closes the `<` at TOKENS[i]."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j][1]
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
        elif t == ">>":
            depth -= 2
        elif t in ("(", ")", "{", "}", ";", "<<<", ">>>"):
            if t in ("(", ")") and depth > 0:
                continue
            break
        if depth == 0:
            return j + 1
        if depth < 0:
            break
    raise Unsure("template arguments it cannot read")


def _template_parameters(head, source):
    """(the `template <...>` text, the parameter names) of a template
    kernel's HEAD."""
    end = _angle_group(head, 1)
    names = []
    for param in _split_commas(head[2:end - 1]):
        words = [t for _, t, _ in param]
        if "..." in words:
            raise Unsure("a variadic template kernel")
        if "=" in words:
            words = words[:words.index("=")]
        if not words or not (words[-1][0].isalpha() or words[-1][0] == "_") \
                or words[-1] in _KEYWORDS or len(words) < 2:
            raise Unsure("an unnamed template parameter")
        names.append(words[-1])
    text = source[head[0][2]:head[end - 1][2] + 1]
    return text, names


def _kernel_name(head):
    i = _declarator_paren(head)
    if i >= 2 and head[i - 2][1] == "::":
        raise Unsure("a kernel defined with a qualified name")
    return head[i - 1][1]


def _parameters(head, source):
    """(text, name) of each parameter of a kernel definition's HEAD."""
    depth, params, current = 0, [], []
    for tok in head[_declarator_paren(head):]:
        piece = tok[1]
        if piece in ("(", "[", "{", "<"):
            depth += 1
            if depth == 1:
                continue
        elif piece in (")", "]", "}", ">"):
            depth -= 1
            if depth == 0:
                params.append(current)
                break
        elif piece == ">>":
            depth -= 2
        if depth == 1 and piece == ",":
            params.append(current)
            current = []
            continue
        current.append(tok)
    else:
        raise Unsure("a kernel's parameter list does not end")
    out = []
    for param in params:
        words = [t for _, t, _ in param]
        if not words or words == ["void"]:
            if len(params) == 1:
                return []
            raise Unsure("an empty parameter")
        if set(words) & {"(", "&", "&&", "..."}:
            raise Unsure("a kernel parameter it cannot forward")
        declarator = words
        for stop in ("=", "["):
            if stop in declarator:
                declarator = declarator[:declarator.index(stop)]
        idents = [w for w in declarator if w[0].isalpha() or w[0] == "_"]
        name = idents[-1] if idents else None
        if name is None or name in _KEYWORDS or len(idents) < 2 or \
                declarator[-1] != name or (len(declarator) > 1 and declarator[-2] == "::"):
            raise Unsure("an unnamed kernel parameter")
        text = source[param[0][2]:param[-1][2] + len(param[-1][1])]
        out.append((text, name))
    return out


def _classify(item):
    """"pp-host", "pp-both", "kernel", "device", "both", "host"."""
    if item.tokens[0][0] == "pp":
        line = item.tokens[0][1]
        if _LOCAL_HEADER.match(line):
            raise Unsure("a local include")
        if _TORCH_HEADER.match(line):
            return "host"
        if _DEVICE_HEADER.match(line):
            return "device"
        return "both"
    words = set(item.words)
    first = item.words[0] if item.words else ""
    if first == "namespace" or (first == "extern" and item.tokens[1][0] == "string"
                                and item.tokens[2][1] == "{"):
        raise Unsure("a namespace or extern block")
    if first == "asm" or first == "__asm__":
        raise Unsure("top-level assembly")
    head = item.head()
    head_words = {t for k, t, _ in head if k == "ident"}
    has_body = len(head) < len(item.tokens)
    if "__global__" in head_words:
        if _names_torch(item):
            raise Unsure("a kernel that names torch")
        return "kernel"
    device_words = head_words & _DEVICE_WORDS
    if "__host__" in head_words and "__device__" in head_words:
        if _names_torch(item):
            raise Unsure("host-device code that names torch")
        if has_body and not head_words & {"inline", "__forceinline__", "static",
                                          "constexpr", "template", "__inline__"}:
            raise Unsure("a host-device function defined with external linkage")
        return "both"
    if device_words:
        if _names_torch(item):
            raise Unsure("device code that names torch")
        return "device"
    if _names_torch(item):
        return "host"
    if has_body:
        if words & _TYPE_WORDS and first in _TYPE_WORDS | {"template", "typedef"} \
                and not _is_function(head):
            return "both"
        return "host"
    if first in _TYPE_WORDS or first == "template" or "constexpr" in words:
        return "both"
    if _is_function(head):
        return "both"           # a prototype
    if "const" in words and "extern" not in words:
        return "both"           # const globals have internal linkage
    return "host"               # a mutable global: one definition only


def _is_function(head):
    """Whether HEAD declares a function: a name then `(` at top level, not
    after `=`."""
    for i, (kind, t, _) in enumerate(head):
        if t == "=":
            return False
        if t == "(" and i > 0 and head[i - 1][0] == "ident" and \
                head[i - 1][1] not in ("decltype", "alignas", "__attribute__",
                                       "__launch_bounds__", "__declspec", "sizeof"):
            return True
    return False


def _split_commas(tokens):
    parts, current, depth = [], [], 0
    for tok in tokens:
        t = tok[1]
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        if t == "," and depth == 0:
            parts.append(current)
            current = []
            continue
        current.append(tok)
    parts.append(current)
    return parts


# The dispatch macros whose scalar_t the device part can name without
# torch's headers, and the types each instantiates.
_DISPATCH_TYPES = {"AT_DISPATCH_FLOATING_TYPES": ("float", "double")}


def _closing(toks, i):
    """The index of the bracket that closes the one at TOKS[i]."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][1] in ("(", "[", "{"):
            depth += 1
        elif toks[j][1] in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise Unsure("brackets that do not close")


def _instances(text, item, targs):
    """The template argument lists a launch with template arguments TARGS
    (tokens) stands for: itself, or under AT_DISPATCH_FLOATING_TYPES one
    list per type scalar_t takes."""
    words = [t for _, t, _ in targs]
    args = [text[a[0][2]:a[-1][2] + len(a[-1][1])] for a in _split_commas(targs)]
    if "scalar_t" not in words:
        return [tuple(args)]
    dispatch = {w for w in item.words if w.startswith("AT_DISPATCH")}
    if len(dispatch) != 1 or next(iter(dispatch)) not in _DISPATCH_TYPES:
        raise Unsure("a kernel launched for the scalar types of %s"
                     % (", ".join(sorted(dispatch)) or "no dispatch"))
    out = []
    for scalar in _DISPATCH_TYPES[next(iter(dispatch))]:
        out.append(tuple(re.sub(r"\bscalar_t\b", scalar, a) for a in args))
    return out


_BUILTIN_TYPES = {"float", "double", "int", "unsigned", "signed", "long", "short", "char",
                  "bool", "true", "false", "int8_t", "int16_t", "int32_t", "int64_t",
                  "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "half", "__half",
                  "__nv_bfloat16", "float2", "float4", "int2", "int4", "std"}


def _check_nameable(instance, shared_names):
    """Template arguments the device part can name: literals, built-in
    types, and names the source declares for both parts."""
    for arg in instance:
        for word in re.findall(r"[A-Za-z_]\w*", arg):
            if word not in _BUILTIN_TYPES and word not in shared_names:
                raise Unsure("a template argument (%s) only the host code can name" % word)


def _rewrite_host(text, item, kernels, device_names, instances, shared_names=frozenset()):
    """ITEM's text with each launch written as a stub call; the template
    arguments each launched template kernel needs go to INSTANCES.
    Raises Unsure when it names a kernel or device symbol any other way."""
    toks = item.tokens
    for i, (kind, piece, offset) in enumerate(toks):
        if kind == "pp" and _NVCC_ONLY.search(piece):
            raise Unsure("host code that asks which compiler it is under")
        if kind == "ident" and piece in device_names:
            raise Unsure("host code that names the device symbol %s" % piece)
        if kind == "ident" and piece in ("min", "max") and i + 1 < len(toks) \
                and toks[i + 1][1] == "(" and (i == 0 or toks[i - 1][1] not in ("::", ".", "->")):
            # nvcc's host pass has CUDA's own min and max; g++ has neither
            raise Unsure("host code that calls CUDA's %s" % piece)
    out, pos = [], item.start
    i = 0
    while i < len(toks):
        kind, piece, offset = toks[i]
        if kind != "ident" or piece not in kernels:
            i += 1
            continue
        if i > 0 and toks[i - 1][1] in ("::", ".", "->"):
            raise Unsure("a qualified launch")
        kernel = kernels[piece]
        targs_text = ""
        open_at = i + 1
        if kernel["template"]:
            if open_at >= len(toks) or toks[open_at][1] != "<":
                raise Unsure("a template kernel launched without template arguments")
            after = _angle_group(toks, open_at)
            targs = toks[open_at + 1:after - 1]
            if not targs:
                raise Unsure("a template kernel launched with deduced arguments")
            for instance in _instances(text, item, targs):
                _check_nameable(instance, shared_names)
                if len(instance) != len(kernel["tparams"]):
                    raise Unsure("a launch that leaves template arguments to defaults")
                instances.setdefault(piece, [])
                if instance not in instances[piece]:
                    instances[piece].append(instance)
            targs_text = text[toks[open_at][2]:toks[after - 1][2] + len(toks[after - 1][1])]
            open_at = after
        if open_at >= len(toks) or toks[open_at][1] != "<<<":
            raise Unsure("host code that names the kernel %s outside a launch" % piece)
        j, depth = open_at + 1, 0
        while j < len(toks):
            t = toks[j][1]
            if t in ("(", "[", "{"):
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
            elif t == ">>>" and depth == 0:
                break
            j += 1
        else:
            raise Unsure("a launch configuration that does not end")
        config = _split_commas(toks[open_at + 1:j])
        if not 2 <= len(config) <= 4 or any(not c for c in config):
            raise Unsure("a launch configuration it cannot read")
        if j + 1 >= len(toks) or toks[j + 1][1] != "(":
            raise Unsure("a launch without arguments")
        _closing(toks, j + 1)
        config_text = [text[c[0][2]:c[-1][2] + len(c[-1][1])] for c in config]
        config_text += ["0"] * (4 - len(config_text))
        empty = toks[j + 2][1] == ")"
        out.append(text[pos:offset])
        out.append("%s%s%s(%s%s" % (STUB_PREFIX, piece, targs_text, ", ".join(config_text),
                                    "" if empty else ", "))
        kernel["launched"] = True
        pos = toks[j + 2][2]
        i = j + 2
    out.append(text[pos:item.end])
    return "".join(out)


def _collect_kernels(source, items, kinds):
    """name -> what the split needs of each kernel; raises Unsure on two
    kernels of one name."""
    kernels = {}
    for item, kind in zip(items, kinds):
        if kind != "kernel":
            continue
        head = item.head()
        name = _kernel_name(head)
        has_body = len(head) < len(item.tokens)
        templated = item.words[0] == "template"
        entry = kernels.get(name)
        if entry is None:
            entry = kernels[name] = {"template": templated, "params": None, "first": item,
                                     "definition": None, "launched": False}
        elif entry["template"] != templated or (has_body and entry["definition"]):
            raise Unsure("two kernels named %s" % name)
        if has_body:
            entry["definition"] = item
            entry["params"] = _parameters(head, source)
            if templated:
                entry["template_text"], entry["tparams"] = _template_parameters(head, source)
    return kernels


def _device_names(items, kinds):
    """The names device variables and functions declare."""
    names = set()
    for item, kind in zip(items, kinds):
        if kind != "device":
            continue
        head = item.head()
        for i, (k, t, _) in enumerate(head):
            if t in ("(", "=", ";", "[") and i and head[i - 1][0] == "ident":
                names.add(head[i - 1][1])
                break
        else:
            if head and head[-1][0] == "ident":
                names.add(head[-1][1])
    return names


def _shared_names(items, kinds):
    """Names both parts see: macros, and every name in the declarations
    both parts get."""
    names = set()
    for item, kind in zip(items, kinds):
        if kind != "both":
            continue
        if item.tokens[0][0] == "pp":
            m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)", item.tokens[0][1])
            if m:
                names.add(m.group(1))
        else:
            names.update(item.words)
    return names


def _substitute(text, mapping):
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: mapping.get(m.group(0), m.group(0)), text)


def _stubs(name, kernel, instances):
    """(host declaration, device definition and instantiations) of the
    launch stub of kernel NAME."""
    params = kernel["params"]
    fixed = ["dim3 dice_grid_", "dim3 dice_block_", "size_t dice_shmem_",
             "cudaStream_t dice_stream_"]
    signature = ", ".join(fixed + [p for p, _ in params])
    prefix, targs = "", ""
    if kernel["template"]:
        prefix = kernel["template_text"] + "\n"
        targs = "<%s>" % ", ".join(kernel["tparams"])
    declaration = "%svoid %s%s(%s);" % (prefix, STUB_PREFIX, name, signature)
    definition = ("%svoid %s%s(%s) {\n  %s%s<<<dice_grid_, dice_block_, dice_shmem_, "
                  "dice_stream_>>>(%s);\n}" % (prefix, STUB_PREFIX, name, signature, name,
                                                targs, ", ".join(n for _, n in params)))
    for instance in instances.get(name, []):
        mapping = dict(zip(kernel["tparams"], instance))
        definition += "\ntemplate void %s%s<%s>(%s);" % (
            STUB_PREFIX, name, ", ".join(instance),
            ", ".join(fixed + [_substitute(p, mapping) for p, _ in params]))
    return declaration, definition


def split(source):
    """A Split of SOURCE (the candidate's cuda_sources, joined), or raise
    Unsure saying why it cannot be split with certainty."""
    if _NVCC_ONLY.search(source):
        raise Unsure("the source asks which compiler it is under")
    items = _items(_tokens(source))
    kinds = [_classify(item) for item in items]
    kernels = _collect_kernels(source, items, kinds)
    device_names = _device_names(items, kinds) - set(kernels)
    shared_names = _shared_names(items, kinds)
    device_out, host_out, instances = [], [], {}
    for item, kind in zip(items, kinds):
        piece = source[item.start:item.end]
        if kind == "kernel":
            name = _kernel_name(item.head())
            device_out.append(piece)
            if kernels[name]["first"] is item:
                host_out.append("\x00declare:%s\x00" % name)
            if kernels[name]["definition"] is item:
                device_out.append("\x00define:%s\x00" % name)
        elif kind == "device":
            device_out.append(piece)
        elif kind == "both":
            device_out.append(piece)
            host_out.append(piece)
        else:
            host_out.append(_rewrite_host(source, item, kernels, device_names, instances,
                                          shared_names))
    device_text = DEVICE_PREAMBLE + "\n".join(device_out) + "\n"
    host_text = HOST_PREAMBLE + "\n".join(host_out) + "\n"
    launched = sorted(name for name, k in kernels.items() if k["launched"])
    for name, kernel in kernels.items():
        declaration = definition = ""
        if kernel["launched"]:
            if kernel["definition"] is None:
                raise Unsure("a launched kernel that is never defined")
            declaration, definition = _stubs(name, kernel, instances)
        device_text = device_text.replace("\x00define:%s\x00" % name, definition)
        host_text = host_text.replace("\x00declare:%s\x00" % name, declaration)
    return Split(device_text, host_text, launched)


def try_split(source):
    """(Split, None) or (None, why not)."""
    try:
        return split(source), None
    except Unsure as e:
        return None, str(e)
    except (RecursionError, ValueError, IndexError) as e:
        return None, "the scanner failed: %s" % e
