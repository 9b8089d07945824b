// The case lists of the correctness sweep. Shared by `tilegemm verify` and the GPU test suite,
// so a kernel that passes one passes the other.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

namespace {

constexpr Layout kRow = Layout::kRowMajor;
constexpr Layout kCol = Layout::kColMajor;

// A portable generator: std::uniform_int_distribution differs between standard libraries, and
// fuzz cases must replay the same everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) up to a bias of bound / 2^64.
  std::int64_t below(std::int64_t bound) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(bound));
  }

 private:
  std::uint64_t state_;
};

// Multiples of 1/8 print exactly in CaseSpec::replay_flags (six significant digits).
float eighths(std::int64_t numerator) {
  return static_cast<float>(numerator) / 8.0f;
}

CaseSpec make_case(std::int64_t m, std::int64_t n, std::int64_t k, const LayoutMix& mix,
                   const std::pair<float, float>& scalars, std::uint64_t seed, GemmTypes types) {
  CaseSpec c;
  c.types = types;
  c.m = m;
  c.n = n;
  c.k = k;
  c.la = mix.a;
  c.lb = mix.b;
  c.lc = mix.c;
  c.alpha = scalars.first;
  c.beta = scalars.second;
  c.seed = seed;
  return c;
}

}  // namespace

const std::vector<std::int64_t>& sweep_sizes() {
  static const std::vector<std::int64_t> sizes = {1,   2,   7,   16,  31,  32,   33,   63,  65,
                                                  127, 128, 129, 255, 257, 1000, 1023, 1025};
  return sizes;
}

const std::vector<LayoutMix>& sweep_layouts() {
  static const std::vector<LayoutMix> mixes = {
      {kRow, kRow, kRow}, {kRow, kCol, kRow}, {kCol, kRow, kCol}, {kCol, kCol, kCol}};
  return mixes;
}

const std::vector<std::pair<float, float>>& sweep_scalars() {
  static const std::vector<std::pair<float, float>> scalars = {
      {1.0f, 0.0f}, {0.5f, 2.0f}, {-1.3f, 0.7f}, {0.0f, 1.0f}};
  return scalars;
}

std::vector<CaseSpec> standard_sweep(std::uint64_t seed, GemmTypes types) {
  const std::vector<std::int64_t>& s = sweep_sizes();
  const std::int64_t count = static_cast<std::int64_t>(s.size());  // 17, a prime
  const std::vector<LayoutMix>& mixes = sweep_layouts();
  const std::vector<std::pair<float, float>>& scalars = sweep_scalars();
  const std::size_t combos = mixes.size() * scalars.size();
  auto at = [&](std::int64_t i) {
    return s[static_cast<std::size_t>(((i % count) + count) % count)];
  };

  // The shape pool: all-equal triples, then the orthogonal array (a, b, a + b mod 17), in which
  // every pair of sizes meets exactly once in every pair of positions.
  std::vector<Shape> pool;
  for (std::int64_t a = 0; a < count; ++a) pool.push_back(Shape{at(a), at(a), at(a)});
  for (std::int64_t a = 0; a < count; ++a) {
    for (std::int64_t b = 0; b < count; ++b) pool.push_back(Shape{at(a), at(b), at(a + b)});
  }

  std::vector<CaseSpec> cases;
  // Round-robin over the 16 layout x (alpha, beta) combinations: each gets ~19 pool shapes.
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const std::size_t combo = i % combos;
    const Shape& p = pool[i];
    cases.push_back(make_case(p.m, p.n, p.k, mixes[combo / scalars.size()],
                              scalars[combo % scalars.size()], seed, types));
  }
  // Every combination also sees 1 and 1025 in each position, with partners that vary.
  const std::int64_t edges[2] = {1, 1025};
  for (std::size_t combo = 0; combo < combos; ++combo) {
    const auto c = static_cast<std::int64_t>(combo);
    for (std::int64_t p = 0; p < 3; ++p) {
      for (std::int64_t e = 0; e < 2; ++e) {
        std::int64_t dims[3] = {at(3 * c + 5 * p + 7 * e), at(7 * c + 3 * p + 11 + 3 * e), 0};
        dims[2] = at(5 * c + 2 * p + 4 + 9 * e);
        dims[p] = edges[e];
        cases.push_back(make_case(dims[0], dims[1], dims[2], mixes[combo / scalars.size()],
                                  scalars[combo % scalars.size()], seed, types));
      }
    }
  }
  // Padded leading dimensions on every fifth case: kernels must use ld, not the width, and the
  // testbed checks that C's padding stays untouched.
  for (std::size_t i = 4; i < cases.size(); i += 5) {
    cases[i].pad_a = 3;
    cases[i].pad_b = 1;
    cases[i].pad_c = 2;
  }
  return cases;
}

std::vector<CaseSpec> fuzz_cases(std::int64_t count, std::uint64_t seed, GemmTypes types) {
  SplitMix64 rng(seed);
  std::vector<CaseSpec> cases;
  for (std::int64_t i = 0; i < count; ++i) {
    CaseSpec c;
    c.types = types;  // draws no random number: every types gets the same cases
    c.m = 1 + rng.below(2048);
    c.n = 1 + rng.below(2048);
    c.k = 1 + rng.below(2048);
    const std::uint64_t bits = rng.next();
    c.la = (bits & 1u) != 0 ? kCol : kRow;
    c.lb = (bits & 2u) != 0 ? kCol : kRow;
    c.lc = (bits & 4u) != 0 ? kCol : kRow;
    // alpha: 1 a quarter of the time, 0 an eighth, else k/8 in [-2, 2]; beta: 0 a quarter of
    // the time (the NaN-poisoned path), 1 an eighth, else k/8.
    const std::int64_t ra = rng.below(8);
    c.alpha = ra < 2 ? 1.0f : ra == 2 ? 0.0f : eighths(rng.below(33) - 16);
    const std::int64_t rb = rng.below(8);
    c.beta = rb < 2 ? 0.0f : rb == 2 ? 1.0f : eighths(rng.below(33) - 16);
    c.pad_a = rng.below(6);
    c.pad_b = rng.below(6);
    c.pad_c = rng.below(6);
    // Every other case pads each leading dimension up to a multiple of 8 elements (16 bytes of a
    // 16-bit type), extents left odd: the cases the aligned tensor-core instances can take. Drawn
    // last, so the cases above are the same as before this draw existed.
    if ((rng.next() & 1u) == 0) {
      auto aligned_pad = [](std::int64_t extent, std::int64_t pad) {
        return (8 - extent % 8) % 8 + 8 * (pad % 2);
      };
      c.pad_a = aligned_pad(c.la == kRow ? c.k : c.m, c.pad_a);
      c.pad_b = aligned_pad(c.lb == kRow ? c.n : c.k, c.pad_b);
      c.pad_c = aligned_pad(c.lc == kRow ? c.n : c.m, c.pad_c);
    }
    c.seed = seed + static_cast<std::uint64_t>(i);
    cases.push_back(c);
  }
  return cases;
}

std::vector<RandomShape> random_shapes(std::int64_t count, std::uint64_t seed,
                                       std::int64_t max_size) {
  SplitMix64 rng(seed);
  const double log_max = std::log(static_cast<double>(max_size) + 1.0);
  // exp(u * ln(max + 1)) for u uniform in [0, 1), floored: 1..max, log-uniform.
  auto draw = [&] {
    const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
    const auto v = static_cast<std::int64_t>(std::floor(std::exp(u * log_max)));
    return std::clamp<std::int64_t>(v, 1, max_size);
  };
  std::vector<RandomShape> shapes;
  for (std::int64_t i = 0; i < count; ++i) {
    RandomShape r;
    r.shape.m = draw();
    r.shape.n = draw();
    r.shape.k = draw();
    const std::uint64_t bits = rng.next();
    r.layouts.a = (bits & 1u) != 0 ? kCol : kRow;
    r.layouts.b = (bits & 2u) != 0 ? kCol : kRow;
    r.layouts.c = (bits & 4u) != 0 ? kCol : kRow;
    shapes.push_back(r);
  }
  return shapes;
}

}  // namespace tilegemm::bench
