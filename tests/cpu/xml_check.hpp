// A strict little XML reader for the CPU tests of the SVG writers: well-formedness as the XML
// spec has it for what the lab writes (one root, matched and properly nested tags, quoted
// attributes with no duplicates, no raw '<' or stray '&' in text or values, nothing after the
// root), and a tree to count and inspect elements. No DTDs, no CDATA, no namespaces' meaning:
// the SVG writer uses none.
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilegemm::test_util {

struct XmlNode {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::unique_ptr<XmlNode>> children;
  std::string text;  // character data directly inside, entities decoded

  // The whitespace-separated tokens of the class attribute hold `token`.
  bool has_class(std::string_view token) const {
    const auto it = attrs.find("class");
    if (it == attrs.end()) return false;
    std::string_view s = it->second;
    while (!s.empty()) {
      const std::size_t space = s.find(' ');
      if (s.substr(0, space) == token) return true;
      if (space == std::string_view::npos) break;
      s.remove_prefix(space + 1);
    }
    return false;
  }
  const XmlNode* child(std::string_view child_name) const {
    for (const auto& c : children) {
      if (c->name == child_name) return c.get();
    }
    return nullptr;
  }
  template <typename F>
  void visit(F&& f) const {
    f(*this);
    for (const auto& c : children) c->visit(f);
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view text) : s_(text) {}

  // Throws std::runtime_error("offset N: ...") at the first violation.
  std::unique_ptr<XmlNode> parse() {
    skip_space();
    if (starts("<?xml")) {
      const std::size_t end = s_.find("?>", pos_);
      if (end == std::string_view::npos) fail("unterminated XML declaration");
      pos_ = end + 2;
    }
    skip_misc();
    if (!starts("<")) fail("no root element");
    auto root = element();
    skip_misc();
    if (pos_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("offset " + std::to_string(pos_) + ": " + what);
  }
  bool starts(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void skip_misc() {
    for (;;) {
      skip_space();
      if (!starts("<!--")) return;
      const std::size_t end = s_.find("-->", pos_);
      if (end == std::string_view::npos) fail("unterminated comment");
      pos_ = end + 3;
    }
  }
  static bool name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  }
  static bool name_char(char c) {
    return name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
  }
  std::string name() {
    if (pos_ >= s_.size() || !name_start(s_[pos_])) fail("expected a name");
    const std::size_t start = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  // Character data up to `stop`, with every '&' a complete entity.
  std::string chars(char stop) {
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != stop) {
      const char c = s_[pos_];
      if (c == '<') fail("raw '<' in character data");
      if (c != '&') {
        out += c;
        ++pos_;
        continue;
      }
      const std::size_t semi = s_.find(';', pos_);
      if (semi == std::string_view::npos || semi - pos_ > 10) fail("'&' that starts no entity");
      const std::string_view ent = s_.substr(pos_ + 1, semi - pos_ - 1);
      if (ent == "amp") {
        out += '&';
      } else if (ent == "lt") {
        out += '<';
      } else if (ent == "gt") {
        out += '>';
      } else if (ent == "quot") {
        out += '"';
      } else if (ent == "apos") {
        out += '\'';
      } else if (ent.size() > 1 && ent[0] == '#') {
        out += '?';  // a character reference; its value does not matter to the tests
      } else {
        fail("unknown entity '&" + std::string(ent) + ";'");
      }
      pos_ = semi + 1;
    }
    return out;
  }
  std::unique_ptr<XmlNode> element() {
    ++pos_;  // '<'
    auto node = std::make_unique<XmlNode>();
    node->name = name();
    for (;;) {
      const std::size_t before = pos_;
      skip_space();
      if (starts("/>")) {
        pos_ += 2;
        return node;
      }
      if (starts(">")) {
        ++pos_;
        break;
      }
      if (pos_ == before) fail("expected whitespace before an attribute");
      const std::string attr = name();
      skip_space();
      if (!starts("=")) fail("attribute '" + attr + "' without '='");
      ++pos_;
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) {
        fail("attribute '" + attr + "' not quoted");
      }
      const char quote = s_[pos_++];
      std::string value = chars(quote);
      if (pos_ >= s_.size()) fail("unterminated attribute value");
      ++pos_;
      if (!node->attrs.emplace(attr, std::move(value)).second) {
        fail("duplicate attribute '" + attr + "'");
      }
    }
    for (;;) {
      node->text += chars('<');
      if (pos_ >= s_.size()) fail("'<" + node->name + ">' is never closed");
      if (starts("<!--")) {
        skip_misc();
        continue;
      }
      if (starts("</")) {
        pos_ += 2;
        const std::string closing = name();
        if (closing != node->name) {
          fail("'</" + closing + ">' closes '<" + node->name + ">'");
        }
        skip_space();
        if (!starts(">")) fail("expected '>'");
        ++pos_;
        return node;
      }
      node->children.push_back(element());
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

inline std::unique_ptr<XmlNode> parse_xml(std::string_view text) {
  return XmlReader(text).parse();
}

}  // namespace tilegemm::test_util
