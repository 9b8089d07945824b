#include "tilegemm/reference.hpp"

namespace tilegemm::reference {

std::vector<double> host_gemm(const Problem& p) {
  const Strides sa = strides_of(p.a.layout, p.a.ld);
  const Strides sb = strides_of(p.b.layout, p.b.ld);
  const Strides sc = strides_of(p.c.layout, p.c.ld);
  const auto* a = static_cast<const float*>(p.a.data);
  const auto* b = static_cast<const float*>(p.b.data);
  const auto* c = static_cast<const float*>(p.c.data);
  std::vector<double> out(static_cast<std::size_t>(p.m * p.n));
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      double acc = 0.0;
      for (std::int64_t kk = 0; kk < p.k; ++kk) {
        acc += static_cast<double>(a[i * sa.row + kk * sa.col]) *
               static_cast<double>(b[kk * sb.row + j * sb.col]);
      }
      double v = static_cast<double>(p.alpha) * acc;
      if (p.beta != 0.0f) v += static_cast<double>(p.beta) * c[i * sc.row + j * sc.col];
      out[static_cast<std::size_t>(i * p.n + j)] = v;
    }
  }
  return out;
}

}  // namespace tilegemm::reference
