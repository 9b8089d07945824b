// The host reference: the fp64 product of the stored values, for CPU tests and small checks.
// bf16 and f16 are read with cuda_bf16.h / cuda_fp16.h's host conversions (exact: both widen).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "elements.hpp"
#include "tilegemm/reference.hpp"

namespace tilegemm::reference {

namespace {

using lab::widen;

template <typename TAB, typename TC>
std::vector<double> host_gemm_typed(const Problem& p) {
  const Strides sa = strides_of(p.a.layout, p.a.ld);
  const Strides sb = strides_of(p.b.layout, p.b.ld);
  const Strides sc = strides_of(p.c.layout, p.c.ld);
  const auto* a = static_cast<const TAB*>(p.a.data);
  const auto* b = static_cast<const TAB*>(p.b.data);
  const auto* c = static_cast<const TC*>(p.c.data);
  std::vector<double> out(static_cast<std::size_t>(p.m * p.n));
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      double acc = 0.0;
      for (std::int64_t kk = 0; kk < p.k; ++kk) {
        acc += widen(a[i * sa.row + kk * sa.col]) * widen(b[kk * sb.row + j * sb.col]);
      }
      double v = static_cast<double>(p.alpha) * acc;
      if (p.beta != 0.0f) v += static_cast<double>(p.beta) * widen(c[i * sc.row + j * sc.col]);
      out[static_cast<std::size_t>(i * p.n + j)] = v;
    }
  }
  return out;
}

}  // namespace

std::vector<double> host_gemm(const Problem& p) {
  if (!types_supported(p.types()) || p.b.dtype != p.a.dtype || p.m < 0 || p.n < 0) return {};
  return lab::with_types(p.types(), [&](auto ab, auto c) {
    return host_gemm_typed<decltype(ab), decltype(c)>(p);
  });
}

}  // namespace tilegemm::reference
