import torch, tilegemm

a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
c = tilegemm.gemm(a, b.T)  # b.T is read column-major in place: a layout, not a copy
ref = a.double() @ b.double().T
print(f"rel. error {((c.double() - ref).norm() / ref.norm()).item():.1e}"
      f" (tolerance {tilegemm.tolerance(4096, 'bf16'):.1e})")
for row in tilegemm.bench("auto", [(4096, 4096, 4096)], dtype="bf16")["results"]:
    print(f"{row['kernel']:>28}  {row['median_ms']:.3f} ms  {row['tflops']:6.1f} TFLOP/s")
