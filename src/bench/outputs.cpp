// What one `bench` run writes and whose rows it keeps: several outputs at once, each in the
// format its extension names (nvbench's --json/--csv/--md side by side), and cutlass_profiler's
// --providers. Planned before anything runs, so a bad path or flag costs no GPU time.
#include <algorithm>
#include <cctype>

#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

}  // namespace

std::optional<Format> format_from_extension(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  const std::string ext = lower(name.substr(dot + 1));
  if (ext == "json") return Format::kJson;
  if (ext == "csv") return Format::kCsv;
  if (ext == "md") return Format::kMarkdown;
  if (ext == "txt" || ext == "table") return Format::kTable;
  return std::nullopt;
}

std::vector<OutputFile> plan_outputs(std::string_view output_flag,
                                     const std::vector<std::string>& paths,
                                     std::string_view format_flag, std::string_view format_text,
                                     bool format_given) {
  const std::string flag(output_flag);
  // Parsed even without outputs: a bad --format is an error whether or not a file is written.
  const Format flag_format = parse_format(format_flag, format_text);
  if (paths.size() > 1 && format_given) {
    throw InputError(std::string(format_flag), "give it with a single " + flag +
                                                   "; with several, each file's format comes "
                                                   "from its extension (.json, .csv, .md, .txt)");
  }
  std::vector<OutputFile> out;
  for (const std::string& path : paths) {
    if (path.empty()) throw InputError(flag, "empty file name");
    for (const OutputFile& earlier : out) {
      if (earlier.path == path) throw InputError(flag, "'" + path + "' given twice");
    }
    OutputFile file{path, flag_format};
    if (!format_given) {
      if (const std::optional<Format> f = format_from_extension(path)) {
        file.format = *f;
      } else if (paths.size() > 1) {
        throw InputError(flag, "'" + path +
                                   "': no format for this extension (want .json, .csv, .md or "
                                   ".txt; or one " +
                                   flag + " with " + std::string(format_flag) + ")");
      }
    }
    out.push_back(std::move(file));
  }
  return out;
}

Providers parse_providers(std::string_view flag, std::string_view text) {
  Providers p{false, false};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = lower(text.substr(start, comma - start));
    if (item == "tilegemm") {
      p.tilegemm = true;
    } else if (item == "cublas") {
      p.cublas = true;
    } else {
      throw InputError(std::string(flag), "'" + item +
                                              "' is not a provider (want tilegemm, cublas or "
                                              "tilegemm,cublas)");
    }
    start = comma + 1;
  }
  return p;
}

void keep_providers(BenchReport* report, Providers providers) {
  std::vector<BenchRow>& rows = report->rows;
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](const BenchRow& r) {
                              const bool is_cublas = r.kernel == "cublas";
                              return is_cublas ? !providers.cublas : !providers.tilegemm;
                            }),
             rows.end());
}

}  // namespace tilegemm::bench
