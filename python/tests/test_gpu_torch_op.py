"""tilegemm.torch: the custom ops pass torch.library.opcheck, run under torch.compile, and have a
correct backward."""
import pytest

import tilegemm


@pytest.fixture(scope="module")
def op(torch):
    import tilegemm.torch as tt

    return tt


def rel_error(torch, x, ref):
    return (torch.linalg.norm(x.double() - ref) / torch.linalg.norm(ref)).item()


@pytest.mark.parametrize("dtype, out_dtype", [("float32", None), ("bfloat16", None),
                                              ("float16", "float32")])
def test_opcheck_gemm(torch, op, dtype, out_dtype):
    dt = getattr(torch, dtype)
    od = getattr(torch, out_dtype) if out_dtype else None
    a = torch.rand(64, 32, device="cuda", dtype=dt)
    b = torch.rand(32, 48, device="cuda", dtype=dt)
    torch.library.opcheck(torch.ops.tilegemm.gemm.default, (a, b, 1.0, "auto", False, od))
    assert "kernel_name" in str(torch.ops.tilegemm.gemm.default._schema)
    ag = a.float().requires_grad_(True)
    bg = b.float().requires_grad_(True)
    torch.library.opcheck(torch.ops.tilegemm.gemm.default, (ag, bg, 0.5, "auto", False, None))


def test_opcheck_gemm_out(torch, op):
    a = torch.rand(64, 32, device="cuda")
    b = torch.rand(32, 48, device="cuda")
    c = torch.rand(64, 48, device="cuda")
    torch.library.opcheck(torch.ops.tilegemm.gemm_out.default, (a, b, c, 1.0, 1.0, "auto", False))


def test_torch_compile_fullgraph(torch, op):
    def f(a, b, bias):
        return torch.relu(op.gemm(a, b) + bias)

    compiled = torch.compile(f, fullgraph=True)
    a = torch.rand(256, 128, device="cuda", dtype=torch.bfloat16) - 0.5
    b = torch.rand(128, 192, device="cuda", dtype=torch.bfloat16) - 0.5
    bias = torch.rand(192, device="cuda", dtype=torch.bfloat16) - 0.5
    got = compiled(a, b, bias)
    want = f(a, b, bias)
    assert torch.equal(got, want)  # the same kernel on the same inputs
    ref = torch.relu(a.double() @ b.double() + bias.double())
    assert rel_error(torch, got, ref) <= 2 * tilegemm.tolerance(128, "bf16")


def test_torch_compile_out_variant(torch, op):
    def f(a, b, c):
        op.gemm(a, b, c, beta=1.0)
        return c * 2

    compiled = torch.compile(f, fullgraph=True)
    a, b = torch.rand(64, 32, device="cuda"), torch.rand(32, 16, device="cuda")
    c0 = torch.rand(64, 16, device="cuda")
    c = c0.clone()
    out = compiled(a, b, c)
    ref = 2 * (a.double() @ b.double() + c0.double())
    assert rel_error(torch, out, ref) <= 2 * tilegemm.tolerance(32)
    assert rel_error(torch, c, ref / 2) <= tilegemm.tolerance(32)  # c was written


@pytest.mark.parametrize("compile", [False, True])
def test_backward(torch, op, compile):
    a = (torch.rand(96, 64, device="cuda") - 0.5).requires_grad_(True)
    b = (torch.rand(64, 80, device="cuda") - 0.5).requires_grad_(True)
    fn = (lambda a, b: (op.gemm(a, b, alpha=1.5) ** 2).sum())
    if compile:
        fn = torch.compile(fn, fullgraph=True)
    fn(a, b).backward()
    a2 = a.detach().double().requires_grad_(True)
    b2 = b.detach().double().requires_grad_(True)
    ((1.5 * a2 @ b2) ** 2).sum().backward()
    assert rel_error(torch, a.grad, a2.grad) <= 4 * tilegemm.tolerance(80)
    assert rel_error(torch, b.grad, b2.grad) <= 4 * tilegemm.tolerance(96)


def test_op_argument_errors(torch, op):
    a = torch.rand(4, 5, device="cuda")
    with pytest.raises(ValueError, match="argument 'beta'"):
        op.gemm(a, torch.rand(5, 3, device="cuda"), beta=1.0)
    with pytest.raises(ValueError, match="argument 'b'"):
        op.gemm(a, torch.rand(6, 3, device="cuda"))
