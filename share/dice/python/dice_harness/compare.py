"""Judging one output against the reference's.

Outputs are flattened (tensors, numbers, nested tuples and lists) and
compared pairwise: same count, shape and dtype, NaN and infinity in the same
places (infinities with the same sign), and finite values within
|new - ref| <= atol + rtol * |ref| (torch.allclose); LOW_PRECISION, when
given, is the (atol, rtol) for float16 and bfloat16 outputs instead, as
KernelBench's tolerance has it.  The errors reported
are over finite places: max |new - ref|, and max |new - ref| / |ref| where
ref is not zero.

The torch functions used are bound when this module is imported, before
any candidate code runs, and the comparison runs with __torch_function__
overrides disabled: a candidate that replaces torch.allclose or returns a
tensor subclass with its own arithmetic does not judge itself.  (A
candidate can still patch the C level or this module; the deception
checks are the answer to that, not this one.)
"""

import math

import contextlib

import torch

_abs, _all, _any, _equal = torch.abs, torch.all, torch.any, torch.equal
_isnan, _isinf, _isfinite = torch.isnan, torch.isinf, torch.isfinite
_max, _sum, _select, _sub = torch.max, torch.sum, torch.masked_select, torch.sub
_le, _add, _mul, _div, _ne = torch.le, torch.add, torch.mul, torch.div, torch.ne
_view_as_real, _tensor_type = torch.view_as_real, torch.Tensor
_to = torch.Tensor.to
_no_overrides = getattr(torch._C, "DisableTorchFunction", None)


def flatten(value, out=None):
    if out is None:
        out = []
    if isinstance(value, (tuple, list)):
        for item in value:
            flatten(item, out)
    elif isinstance(value, dict):
        for k in sorted(value, key=str):
            flatten(value[k], out)
    else:
        out.append(value)
    return out


def _as_tensor(value):
    if isinstance(value, _tensor_type):
        return value
    if isinstance(value, (bool, int, float)):
        return torch.tensor(value)
    return None


class Verdict:
    def __init__(self):
        self.ok = True
        self.reason = None
        self.max_abs = 0.0
        self.max_rel = 0.0
        self.measured = False
        self.atol = None    # the widest tolerance applied to any output
        self.rtol = None

    def fail(self, reason):
        if self.ok:
            self.reason = reason
        self.ok = False


def _shape(t):
    return "[" + ",".join(str(d) for d in t.shape) + "]"


_LOW_PRECISION = (torch.float16, torch.bfloat16)


def compare(ref_out, new_out, atol, rtol, low_precision=None):
    with (_no_overrides() if _no_overrides else contextlib.nullcontext()):
        return _compare(ref_out, new_out, atol, rtol, low_precision)


def _compare(ref_out, new_out, atol, rtol, low_precision):
    verdict = Verdict()
    refs, news = flatten(ref_out), flatten(new_out)
    if len(refs) != len(news):
        verdict.fail("output count mismatch: expected %d, got %d"
                     % (len(refs), len(news)))
        return verdict
    for i, (r, n) in enumerate(zip(refs, news)):
        where = "output %d: " % i if len(refs) > 1 else ""
        rt, nt = _as_tensor(r), _as_tensor(n)
        if rt is None or nt is None:
            if rt is None and nt is None and r == n:
                continue
            verdict.fail("%stype mismatch: expected %s, got %s"
                         % (where, type(r).__name__, type(n).__name__))
            continue
        if rt.shape != nt.shape:
            verdict.fail("%sshape mismatch: expected %s, got %s"
                         % (where, _shape(rt), _shape(nt)))
            continue
        if rt.dtype != nt.dtype:
            verdict.fail("%sdtype mismatch: expected %s, got %s"
                         % (where, rt.dtype, nt.dtype))
            continue
        a, r = atol, rtol
        if low_precision and rt.dtype in _LOW_PRECISION:
            a, r = low_precision
        verdict.atol = a if verdict.atol is None else max(verdict.atol, a)
        verdict.rtol = r if verdict.rtol is None else max(verdict.rtol, r)
        _values(rt, _to(nt, rt.device), a, r, where, verdict)
    return verdict


def _values(rt, nt, atol, rtol, where, verdict):
    if rt.is_complex():
        rt, nt = _view_as_real(rt), _view_as_real(nt)
    wide = torch.float64 if rt.dtype == torch.float64 else torch.float32
    if not rt.is_floating_point():
        wide = torch.float64
    r, n = _to(rt, wide), _to(nt, wide)
    if r.numel() == 0:
        return
    rnan, nnan = _isnan(r), _isnan(n)
    if not _equal(rnan, nnan):
        verdict.fail("%sNaN mismatch: %d NaN expected, %d got"
                     % (where, int(_sum(rnan)), int(_sum(nnan))))
    rinf, ninf = _isinf(r), _isinf(n)
    if not _equal(rinf, ninf) or not _equal(_select(r, rinf), _select(n, rinf)):
        verdict.fail("%sInf mismatch: %d Inf expected, %d got"
                     % (where, int(_sum(rinf)), int(_sum(ninf))))
    finite = _isfinite(r) & _isfinite(n)
    rf, nf = _select(r, finite), _select(n, finite)
    if rf.numel():
        diff = _abs(_sub(nf, rf))
        worst = float(_max(diff))
        verdict.max_abs = max(verdict.max_abs, worst)
        nonzero = _ne(rf, 0)
        if bool(_any(nonzero)):
            rel = float(_max(_div(_select(diff, nonzero), _abs(_select(rf, nonzero)))))
            verdict.max_rel = max(verdict.max_rel, rel)
        verdict.measured = True
        if not bool(_all(_le(diff, _add(_mul(_abs(rf), rtol), atol)))):
            verdict.fail("%svalues differ: max abs err %.6g (atol %g, rtol %g)"
                         % (where, worst, atol, rtol))


def finite_or_none(x):
    if x is None or not math.isfinite(x):
        return None
    return x
