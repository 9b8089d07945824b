"""tilegemm.gemm as torch.library custom ops, so that torch.compile graphs can call it.

    import tilegemm.torch
    y = tilegemm.torch.gemm(a, b)                  # torch.ops.tilegemm.gemm: a new tensor
    tilegemm.torch.gemm(a, b, c, beta=1.0)         # torch.ops.tilegemm.gemm_out: writes c

Both ops have fake (meta) kernels, so torch.compile traces them without running them, and
torch.library.opcheck passes (the schemas call the kernel name `kernel_name`: Inductor passes
`kernel` to its fallback itself); tilegemm::gemm has a backward (dA = alpha * dC @ B^T,
dB = alpha * A^T @ dC, each itself a tilegemm::gemm on transposed views, read in place). Nothing
here is compiled: the ops are registered from Python at import, and no libtorch is needed to
build the package.
"""

from typing import Optional

import torch

from . import _api

__all__ = ["gemm"]


@torch.library.custom_op("tilegemm::gemm", mutates_args=(), device_types="cuda")
def _gemm(a: torch.Tensor, b: torch.Tensor, alpha: float = 1.0, kernel_name: str = "auto",
          tf32: bool = False, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    # Autograd is this op's own (register_autograd below): the tensors may still say
    # requires_grad here, which tilegemm.gemm refuses for a direct call.
    return _api.gemm(a.detach(), b.detach(), alpha=alpha, kernel=kernel_name, tf32=tf32,
                     out_dtype=out_dtype)


@_gemm.register_fake
def _gemm_fake(a, b, alpha=1.0, kernel_name="auto", tf32=False, out_dtype=None):
    torch._check(a.dim() == 2 and b.dim() == 2, lambda: "tilegemm::gemm: a and b must be 2-D")
    torch._check(a.shape[1] == b.shape[0],
                 lambda: f"tilegemm::gemm: b's {b.shape[0]} rows do not chain with a's "
                         f"{a.shape[1]} columns")
    torch._check(a.dtype == b.dtype, lambda: "tilegemm::gemm: a and b must share a dtype")
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype or a.dtype)


def _readable(t):
    """t itself when tilegemm reads it in place (one unit stride), else a contiguous copy: the
    incoming gradient of a reduction is an expanded view with no unit stride."""
    rows, cols = t.shape
    rs, cs = t.stride()
    if (cs == 1 or cols <= 1) and (rs >= max(cols, 1) or rows <= 1):
        return t
    if (rs == 1 or rows <= 1) and (cs >= max(rows, 1) or cols <= 1):
        return t
    return t.contiguous()


def _setup_context(ctx, inputs, output):
    a, b, alpha, kernel_name, tf32, out_dtype = inputs
    ctx.save_for_backward(a, b)
    ctx.alpha = alpha
    ctx.tf32 = tf32


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    g = _readable(grad if grad.dtype == a.dtype else grad.to(a.dtype))
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = _gemm(g, b.mT, ctx.alpha, "auto", ctx.tf32, a.dtype)
    if ctx.needs_input_grad[1]:
        grad_b = _gemm(a.mT, g, ctx.alpha, "auto", ctx.tf32, b.dtype)
    return grad_a, grad_b, None, None, None, None


_gemm.register_autograd(_backward, setup_context=_setup_context)


@torch.library.custom_op("tilegemm::gemm_out", mutates_args=("c",), device_types="cuda")
def _gemm_out(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, alpha: float = 1.0,
              beta: float = 0.0, kernel_name: str = "auto", tf32: bool = False) -> None:
    _api.gemm(a, b, c, alpha=alpha, beta=beta, kernel=kernel_name, tf32=tf32)


@_gemm_out.register_fake
def _gemm_out_fake(a, b, c, alpha=1.0, beta=0.0, kernel_name="auto", tf32=False):
    torch._check(a.shape[1] == b.shape[0] and c.shape[0] == a.shape[0] and c.shape[1] == b.shape[1],
                 lambda: "tilegemm::gemm_out: shapes of a, b, c do not chain")
    return None


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, kernel="auto", out_dtype=None, tf32=False):
    """tilegemm.gemm through the custom ops (torch.compile-able): without c, tilegemm::gemm returns
    a new tensor (with autograd); with c, tilegemm::gemm_out writes alpha * a @ b + beta * c into it
    and returns it. Arguments as tilegemm.gemm; the stream is torch's current one."""
    if c is None:
        if beta != 0:
            raise ValueError(f"tilegemm.torch.gemm: argument 'beta': is {beta}, which scales an "
                             "existing C: pass c to accumulate into")
        return _gemm(a, b, float(alpha), kernel, bool(tf32), out_dtype)
    if out_dtype is not None and out_dtype != c.dtype:
        raise ValueError(f"tilegemm.torch.gemm: argument 'out_dtype': {out_dtype} differs from "
                         f"c's dtype {c.dtype}")
    _gemm_out(a, b, c, float(alpha), float(beta), kernel, bool(tf32))
    return c
