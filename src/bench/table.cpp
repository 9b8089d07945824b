// Rendering of preformatted tables: aligned text for the terminal, RFC 4180 CSV, markdown; and
// the small formatting helpers every writer shares.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <ostream>
#include <stdexcept>

#include "tilegemm/bench.hpp"

namespace tilegemm::bench {

namespace {

std::vector<std::size_t> column_widths(const Table& t) {
  std::vector<std::size_t> w(t.headers.size(), 0);
  for (std::size_t c = 0; c < t.headers.size(); ++c) w[c] = t.headers[c].size();
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], row[c].size());
  }
  return w;
}

void pad_cell(std::ostream& os, const std::string& cell, std::size_t width, bool right) {
  const std::string fill(width - cell.size(), ' ');
  if (right)
    os << fill << cell;
  else
    os << cell << fill;
}

std::string markdown_cell(const std::string& cell) {
  std::string out;
  for (char ch : cell) {
    if (ch == '|')
      out += "\\|";
    else
      out += ch;
  }
  return out;
}

bool shell_safe(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         std::string_view("_-./:=,+@%").find(ch) != std::string_view::npos;
}

}  // namespace

void Table::add_column(std::string header, bool align_right) {
  headers.push_back(std::move(header));
  right_align.push_back(align_right);
}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers.size()) {
    throw std::logic_error("Table::add_row: " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(headers.size()) + " columns");
  }
  rows.push_back(std::move(cells));
}

void write_text(std::ostream& os, const Table& t) {
  const std::vector<std::size_t> w = column_widths(t);
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) os << "  ";
      // The last column is not padded on the right: no trailing blanks.
      if (c + 1 == cells.size() && !t.right_align[c])
        os << cells[c];
      else
        pad_cell(os, cells[c], w[c], t.right_align[c]);
    }
    os << '\n';
  };
  line(t.headers);
  for (std::size_t c = 0; c < w.size(); ++c) {
    if (c > 0) os << "  ";
    os << std::string(w[c], '-');
  }
  os << '\n';
  for (const auto& row : t.rows) line(row);
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

void write_csv(std::ostream& os, const Table& t) {
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) os << ',';
      os << csv_field(cells[c]);
    }
    os << '\n';
  };
  line(t.headers);
  for (const auto& row : t.rows) line(row);
}

void write_markdown(std::ostream& os, const Table& t) {
  Table escaped = t;
  for (auto& h : escaped.headers) h = markdown_cell(h);
  for (auto& row : escaped.rows) {
    for (auto& cell : row) cell = markdown_cell(cell);
  }
  std::vector<std::size_t> w = column_widths(escaped);
  for (std::size_t& width : w) width = std::max<std::size_t>(width, 3);
  auto line = [&](const std::vector<std::string>& cells) {
    os << '|';
    for (std::size_t c = 0; c < cells.size(); ++c) {
      os << ' ';
      pad_cell(os, cells[c], w[c], escaped.right_align[c]);
      os << " |";
    }
    os << '\n';
  };
  line(escaped.headers);
  os << '|';
  for (std::size_t c = 0; c < w.size(); ++c) {
    os << ' ' << std::string(w[c] - 1, '-') << (escaped.right_align[c] ? ':' : '-') << " |";
  }
  os << '\n';
  for (const auto& row : escaped.rows) line(row);
}

void write_sections(std::ostream& os, const std::vector<Section>& sections, Format format) {
  if (format == Format::kJson) {
    nlohmann::json out = nlohmann::json::array();
    for (const Section& s : sections) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& row : s.table.rows) {
        nlohmann::json r = nlohmann::json::object();
        for (std::size_t c = 0; c < row.size(); ++c) r[s.table.headers[c]] = row[c];
        rows.push_back(r);
      }
      std::vector<std::string> notes = s.notes_before;
      notes.insert(notes.end(), s.notes_after.begin(), s.notes_after.end());
      out.push_back({{"title", s.title}, {"notes", notes}, {"rows", rows}});
    }
    os << out.dump(2) << '\n';
    return;
  }
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const Section& s = sections[i];
    // Markdown sections end in a blank line already.
    if (i > 0 && format != Format::kMarkdown) os << '\n';
    switch (format) {
      case Format::kTable:
        os << s.title << '\n' << std::string(s.title.size(), '=') << '\n';
        for (const auto& n : s.notes_before) os << n << '\n';
        if (!s.notes_before.empty()) os << '\n';
        if (!s.table.headers.empty()) write_text(os, s.table);
        for (const auto& n : s.notes_after) os << n << '\n';
        break;
      case Format::kMarkdown:
        os << "### " << s.title << "\n\n";
        for (const auto& n : s.notes_before) os << n << "\n\n";
        if (!s.table.headers.empty()) {
          write_markdown(os, s.table);
          os << '\n';
        }
        for (const auto& n : s.notes_after) os << n << "\n\n";
        break;
      case Format::kCsv:
        os << "# " << s.title << '\n';
        for (const auto& n : s.notes_before) os << "# " << n << '\n';
        if (!s.table.headers.empty()) write_csv(os, s.table);
        for (const auto& n : s.notes_after) os << "# " << n << '\n';
        break;
      case Format::kJson:
        break;
    }
  }
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

std::string scientific(double value, int decimals) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*e", decimals, value);
  return buf;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string join_command(int argc, const char* const* argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i > 0) out += ' ';
    if (!arg.empty() && std::all_of(arg.begin(), arg.end(), shell_safe)) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char ch : arg) {
      if (ch == '\'')
        out += "'\\''";
      else
        out += ch;
    }
    out += '\'';
  }
  return out;
}

}  // namespace tilegemm::bench
