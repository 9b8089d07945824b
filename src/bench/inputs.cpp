// Parsing of the lab's inputs. Every function either returns a valid value or throws an
// InputError whose one-line message names the flag and says what was wanted, so the CLI can
// print it as is and exit 2.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>

#include <sstream>

#include "tilegemm/bench.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm::bench {

namespace {

std::string quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// A bound as a person writes it: "0", "0.5", "100".
std::string shortest(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    if (at == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
}

enum class IntParse { kOk, kSyntax, kOutOfRange };

// The whole of `text` as a signed decimal integer (no sign other than '-', no spaces).
IntParse to_int64(std::string_view text, std::int64_t* out) {
  if (text.empty()) return IntParse::kSyntax;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(first, last, *out);
  if (r.ec == std::errc::result_out_of_range) return IntParse::kOutOfRange;
  if (r.ec != std::errc() || r.ptr != last) return IntParse::kSyntax;
  return IntParse::kOk;
}

constexpr const char* kSizeListWant = "(want 256, 256:4096:256 or 256:4096:x2)";

// One dimension of a size list or shape: syntax errors throw `syntax_message`, range errors the
// "sizes must be" messages with the whole text quoted.
std::int64_t parse_dim(std::string_view flag, std::string_view whole, std::string_view item,
                       const std::string& syntax_message) {
  std::int64_t v = 0;
  switch (to_int64(item, &v)) {
    case IntParse::kSyntax:
      throw InputError(std::string(flag), syntax_message);
    case IntParse::kOutOfRange:
      throw InputError(std::string(flag),
                       quoted(whole) + ": sizes must be <= " + std::to_string(kMaxDim));
    case IntParse::kOk:
      break;
  }
  if (v < 1) throw InputError(std::string(flag), quoted(whole) + ": sizes must be >= 1");
  if (v > kMaxDim) {
    throw InputError(std::string(flag),
                     quoted(whole) + ": sizes must be <= " + std::to_string(kMaxDim));
  }
  return v;
}

void append_checked(std::string_view flag, std::string_view whole, std::vector<std::int64_t>* out,
                    std::int64_t value) {
  if (out->size() >= kMaxSizeListLength) {
    throw InputError(std::string(flag), quoted(whole) + " has more than " +
                                            std::to_string(kMaxSizeListLength) + " sizes");
  }
  out->push_back(value);
}

}  // namespace

InputError::InputError(std::string flag, const std::string& message)
    : std::runtime_error(flag + ": " + message), flag_(std::move(flag)) {}

std::string Shape::to_string() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::vector<std::int64_t> parse_size_list(std::string_view flag, std::string_view text) {
  const std::string syntax = quoted(text) + " is not a size list " + kSizeListWant;
  if (text.empty()) throw InputError(std::string(flag), syntax);
  std::vector<std::int64_t> sizes;
  for (std::string_view item : split(text, ',')) {
    const std::vector<std::string_view> parts = split(item, ':');
    if (parts.size() == 1) {
      append_checked(flag, text, &sizes, parse_dim(flag, text, parts[0], syntax));
      continue;
    }
    if (parts.size() != 3) throw InputError(std::string(flag), syntax);
    const std::int64_t start = parse_dim(flag, text, parts[0], syntax);
    const std::int64_t end = parse_dim(flag, text, parts[1], syntax);
    if (end < start) {
      throw InputError(std::string(flag),
                       quoted(text) + ": a range must not run backwards (start > end)");
    }
    std::string_view step_text = parts[2];
    const bool multiplicative = !step_text.empty() && step_text.front() == 'x';
    if (multiplicative) step_text.remove_prefix(1);
    std::int64_t step = 0;
    if (to_int64(step_text, &step) != IntParse::kOk) throw InputError(std::string(flag), syntax);
    if (multiplicative) {
      if (step < 2) {
        throw InputError(std::string(flag), quoted(text) + ": a range's factor must be >= 2");
      }
      for (std::int64_t v = start;; v *= step) {
        append_checked(flag, text, &sizes, v);
        if (v > end / step) break;  // the next value would pass `end` (or overflow)
      }
    } else {
      if (step < 1) {
        throw InputError(std::string(flag), quoted(text) + ": a range's step must be >= 1");
      }
      for (std::int64_t v = start;; v += step) {
        append_checked(flag, text, &sizes, v);
        if (v > end - step) break;
      }
    }
  }
  return sizes;
}

Shape parse_shape(std::string_view flag, std::string_view text) {
  const std::string syntax = quoted(text) + " is not a shape (want MxNxK, e.g. 4095x4095x4095)";
  const std::vector<std::string_view> parts = split(text, 'x');
  if (parts.size() != 3) throw InputError(std::string(flag), syntax);
  Shape s;
  s.m = parse_dim(flag, text, parts[0], syntax);
  s.n = parse_dim(flag, text, parts[1], syntax);
  s.k = parse_dim(flag, text, parts[2], syntax);
  return s;
}

std::vector<Shape> cartesian(const std::vector<std::int64_t>& ms,
                             const std::vector<std::int64_t>& ns,
                             const std::vector<std::int64_t>& ks) {
  std::vector<Shape> shapes;
  shapes.reserve(ms.size() * ns.size() * ks.size());
  for (std::int64_t m : ms) {
    for (std::int64_t n : ns) {
      for (std::int64_t k : ks) shapes.push_back(Shape{m, n, k});
    }
  }
  return shapes;
}

Layout parse_layout(std::string_view flag, std::string_view text) {
  if (text == "row") return Layout::kRowMajor;
  if (text == "col") return Layout::kColMajor;
  throw InputError(std::string(flag), quoted(text) + " is not a layout (want row or col)");
}

Pads parse_pads(std::string_view flag, std::string_view text) {
  const std::string syntax = quoted(text) + " is not a pad triple (want a,b,c, e.g. 0,0,3)";
  const std::vector<std::string_view> parts = split(text, ',');
  if (parts.size() != 3) throw InputError(std::string(flag), syntax);
  std::int64_t v[3] = {0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    switch (to_int64(parts[i], &v[i])) {
      case IntParse::kSyntax:
        throw InputError(std::string(flag), syntax);
      case IntParse::kOutOfRange:
        v[i] = parts[i].front() == '-' ? -1 : std::numeric_limits<std::int64_t>::max();
        break;
      case IntParse::kOk:
        break;
    }
    if (v[i] < 0) throw InputError(std::string(flag), quoted(text) + ": pads must be >= 0");
    if (v[i] > kMaxPad) {
      throw InputError(std::string(flag),
                       quoted(text) + ": pads must be <= " + std::to_string(kMaxPad));
    }
  }
  return Pads{v[0], v[1], v[2]};
}

std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min_value,
                       std::int64_t max_value) {
  std::int64_t v = 0;
  switch (to_int64(text, &v)) {
    case IntParse::kSyntax:
      throw InputError(std::string(flag), quoted(text) + " is not an integer");
    case IntParse::kOutOfRange:  // beyond int64: the sign says which bound it passes
      v = text.front() == '-' ? std::numeric_limits<std::int64_t>::min()
                              : std::numeric_limits<std::int64_t>::max();
      break;
    case IntParse::kOk:
      break;
  }
  if (v < min_value) {
    throw InputError(std::string(flag), quoted(text) + " must be >= " + std::to_string(min_value));
  }
  if (v > max_value) {
    throw InputError(std::string(flag), quoted(text) + " must be <= " + std::to_string(max_value));
  }
  return v;
}

std::uint64_t parse_seed(std::string_view flag, std::string_view text) {
  std::uint64_t v = 0;
  const char* last = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(text.data(), last, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != last) {
    throw InputError(std::string(flag),
                     quoted(text) + " is not a seed (want an integer 0.." +
                         std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")");
  }
  return v;
}

float parse_scalar(std::string_view flag, std::string_view text) {
  double v = 0.0;
  const char* last = text.data() + text.size();
  const std::from_chars_result r = std::from_chars(text.data(), last, v);
  if (text.empty() || r.ec == std::errc::invalid_argument || r.ptr != last) {
    throw InputError(std::string(flag), quoted(text) + " is not a number");
  }
  if (r.ec == std::errc::result_out_of_range || !std::isfinite(v) ||
      std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max())) {
    throw InputError(std::string(flag), quoted(text) + " must be a finite fp32 number");
  }
  return static_cast<float>(v);
}

double parse_number_in(std::string_view flag, std::string_view text, double min_value,
                       double max_value) {
  const double v = static_cast<double>(parse_scalar(flag, text));
  if (v < min_value) {
    throw InputError(std::string(flag), quoted(text) + " must be >= " + shortest(min_value));
  }
  if (v > max_value) {
    throw InputError(std::string(flag), quoted(text) + " must be <= " + shortest(max_value));
  }
  return v;
}

DType parse_dtype(std::string_view flag, std::string_view text) {
  for (DType d : {DType::kF32, DType::kTF32, DType::kBF16, DType::kF16}) {
    if (text == dtype_name(d)) return d;
  }
  throw InputError(std::string(flag),
                   "unknown dtype " + quoted(text) + "; expected f32, tf32, bf16 or f16");
}

DType parse_dtype_c(std::string_view flag, std::string_view text) {
  for (DType d : {DType::kF32, DType::kBF16, DType::kF16}) {
    if (text == dtype_name(d)) return d;
  }
  if (text == dtype_name(DType::kTF32)) {
    throw InputError(std::string(flag),
                     "'tf32' is not a C dtype (tf32 is fp32 storage read with tf32 math: C is "
                     "f32); expected f32, bf16 or f16");
  }
  throw InputError(std::string(flag),
                   "unknown dtype " + quoted(text) + "; expected f32, bf16 or f16");
}

GemmTypes parse_types(std::string_view ab_flag, std::string_view ab_text, std::string_view c_flag,
                      std::string_view c_text) {
  GemmTypes t;
  t.ab = ab_text.empty() ? DType::kF32 : parse_dtype(ab_flag, ab_text);
  t.c = c_text.empty() ? default_c_dtype(t.ab) : parse_dtype_c(c_flag, c_text);
  if (!types_supported(t)) {
    // The C types this A/B type can give, its own first (bf16 -> "bf16 or f32").
    std::string want = types_supported(GemmTypes{t.ab, t.ab}) ? dtype_name(t.ab) : "";
    if (t.ab != DType::kF32 && types_supported(GemmTypes{t.ab, DType::kF32})) {
      want += (want.empty() ? "" : " or ") + std::string(dtype_name(DType::kF32));
    }
    throw InputError(std::string(c_flag), quoted(c_text) + " is not a C dtype for " +
                                              std::string(ab_flag) + " " + dtype_name(t.ab) +
                                              " (want " + want + ")");
  }
  return t;
}

std::string sm_name(int cc) {
  return "sm_" + std::to_string(cc);
}

std::string cc_requirement(const KernelDesc& desc) {
  if (desc.min_cc <= 0 && desc.max_cc <= 0) return "any";
  if (desc.max_cc <= 0) return sm_name(desc.min_cc) + " or newer";
  if (desc.min_cc == desc.max_cc) {
    // One compute capability only: from sm_90 on, an architecture-specific ("a") build.
    return sm_name(desc.min_cc) + (desc.min_cc >= 90 ? "a" : " only");
  }
  if (desc.min_cc <= 0) return "up to " + sm_name(desc.max_cc);
  return sm_name(desc.min_cc) + ".." + sm_name(desc.max_cc);
}

KernelSelection select_kernels(std::string_view flag, std::string_view text,
                               std::optional<GemmTypes> types, int cc) {
  if (text.empty()) {
    throw InputError(std::string(flag), "'' names no kernel (want a glob such as 'smem_tiled_*')");
  }
  const std::vector<KernelInfo>& all = all_kernels();
  std::vector<bool> chosen(all.size(), false);
  bool with_auto = false;
  for (std::string_view glob : split(text, ',')) {
    if (glob.empty()) {
      throw InputError(std::string(flag), quoted(text) + " has an empty item");
    }
    if (glob == "auto") {
      with_auto = true;
      continue;
    }
    const std::vector<const KernelInfo*> matched = match_kernels(glob);
    if (matched.empty()) {
      throw InputError(std::string(flag),
                       quoted(glob) + " matches no kernel (see `tilegemm list`)");
    }
    bool any = false;
    for (const KernelInfo* k : matched) {
      if (types && !k->desc.computes(*types)) continue;
      chosen[static_cast<std::size_t>(k - all.data())] = true;
      any = true;
    }
    if (!any) {
      const std::string list_flags = dtype_flags(*types);
      throw InputError(std::string(flag),
                       quoted(glob) + " matches no kernel computing " + gemm_types_name(*types) +
                           " (see `tilegemm list " +
                           (list_flags.empty() ? std::string("--dtype f32") : list_flags) + "`)");
    }
  }
  KernelSelection out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!chosen[i]) continue;
    if (cc > 0 && !all[i].desc.runs_on(cc)) {
      out.skipped.push_back("skipped " + all[i].name + ": needs " + cc_requirement(all[i].desc) +
                            " (this GPU is " + sm_name(cc) + ")");
      continue;
    }
    out.names.push_back(all[i].name);
  }
  if (with_auto) out.names.emplace_back("auto");
  return out;
}

Format parse_format(std::string_view flag, std::string_view text) {
  if (text == "table") return Format::kTable;
  if (text == "csv") return Format::kCsv;
  if (text == "json") return Format::kJson;
  if (text == "md") return Format::kMarkdown;
  throw InputError(std::string(flag),
                   quoted(text) + " is not a format (want table, csv, json or md)");
}

}  // namespace tilegemm::bench
