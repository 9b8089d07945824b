// `tilegemm plot` without a GPU: the SVGs are well-formed XML, hold exactly one mark per row with
// status ok (each with a <title> naming the row), place the rows by the analysis module's
// intensity and their TFLOP/s, and draw the device's ceilings; bad input names its flag.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "input_error.hpp"
#include "tilegemm/bench.hpp"
#include "tilegemm/plot.hpp"
#include "xml_check.hpp"

namespace tb = tilegemm::bench;
using tilegemm::test_util::error_of;
using tilegemm::test_util::parse_xml;
using tilegemm::test_util::XmlNode;

namespace {

std::string fixture(const std::string& name) {
  std::string here = __FILE__;
  here.erase(here.find_last_of('/'));
  here.erase(here.find_last_of('/') + 1);
  return here + "fixtures/" + name;
}

const tb::BenchReport& slice() {
  static const tb::BenchReport r = tb::read_bench_file("--input", fixture("h200_slice.json"));
  return r;
}

std::vector<const XmlNode*> marks(const XmlNode& root) {
  std::vector<const XmlNode*> out;
  root.visit([&](const XmlNode& n) {
    if (n.has_class("mark")) out.push_back(&n);
  });
  return out;
}

// The mark whose title starts with `prefix`.
const XmlNode* mark_titled(const std::vector<const XmlNode*>& ms, const std::string& prefix) {
  for (const XmlNode* m : ms) {
    const XmlNode* t = m->child("title");
    if (t != nullptr && t->text.rfind(prefix, 0) == 0) return m;
  }
  return nullptr;
}

double attr(const XmlNode* n, const char* name) {
  return std::atof(n->attrs.at(name).c_str());
}

// Centre of a roofline mark: circles by cx/cy, cuBLAS's squares by their corner + 4.5.
std::pair<double, double> centre(const XmlNode* n) {
  if (n->name == "circle") return {attr(n, "cx"), attr(n, "cy")};
  return {attr(n, "x") + 4.5, attr(n, "y") + 4.5};
}

std::string all_text(const XmlNode& root) {
  std::string out;
  root.visit([&](const XmlNode& n) { out += n.text + "\n"; });
  return out;
}

}  // namespace

TEST(XmlCheck, RejectsWhatIsNotWellFormed) {
  EXPECT_NO_THROW(
      parse_xml("<?xml version=\"1.0\"?>\n<a x=\"1\"><b y='2'>t &amp; u</b><c/></a>\n"));
  for (const char* bad : {"<a><b></a></b>", "<a x=1/>", "<a>x & y</a>", "<a x=\"1\" x=\"2\"/>",
                          "<a/><b/>", "<a>", "<a x=\"<\"/>", "text", "<a>&nbsp;</a>"}) {
    EXPECT_THROW(parse_xml(bad), std::runtime_error) << bad;
  }
  const auto root = parse_xml(
      "<g><rect class=\"mark cublas\"><title>t</title></rect>"
      "<rect class=\"marker\"/></g>");
  EXPECT_EQ(marks(*root).size(), 1u);  // "marker" is not the class "mark"
}

TEST(PlotRoofline, OneMarkPerOkRowPlacedByIntensityAndTflops) {
  const tb::PlotResult plot = tb::roofline_svg(slice(), "--input", "--device", "", "slice.json");
  EXPECT_EQ(plot.device_key, "h200");  // from the file's "NVIDIA H200"
  EXPECT_EQ(plot.marks, 13u);
  EXPECT_EQ(plot.left_out, 1u);  // the N/A row
  const auto root = parse_xml(plot.svg);
  EXPECT_EQ(root->name, "svg");
  const std::vector<const XmlNode*> ms = marks(*root);
  ASSERT_EQ(ms.size(), 13u);
  std::set<std::string> titles;
  std::size_t cublas = 0;
  for (const XmlNode* m : ms) {
    const XmlNode* title = m->child("title");
    ASSERT_NE(title, nullptr);
    titles.insert(title->text);
    cublas += m->has_class("cublas") ? 1 : 0;
  }
  EXPECT_EQ(titles.size(), 13u);  // every row named, none twice
  EXPECT_EQ(cublas, 3u);          // cuBLAS rows are drawn apart (f32 1024, 4096; bf16 4096)

  // Intensities from analysis::arithmetic_intensity: 4096/6 = 682.7 FLOP/byte in f32, and
  // 2*4096^3 / (2*2*4096^2 + 4*4096^2) = 1024 in bf16 -> f32.
  const XmlNode* naive4096 =
      mark_titled(ms, "naive 4096x4096x4096 row,row,row f32: 5.61 TFLOP/s at 682.7 FLOP/byte");
  const XmlNode* cublas4096 =
      mark_titled(ms, "cublas 4096x4096x4096 row,row,row f32: 51.33 TFLOP/s at 682.7 FLOP/byte");
  const XmlNode* naive1024 =
      mark_titled(ms, "naive 1024x1024x1024 row,row,row f32: 6.23 TFLOP/s at 170.7 FLOP/byte");
  const XmlNode* bf16 = mark_titled(
      ms, "cublas 4096x4096x4096 row,row,row bf16->f32: 796.32 TFLOP/s at 1024.0 FLOP/byte");
  ASSERT_TRUE(naive4096 && cublas4096 && naive1024 && bf16);
  EXPECT_EQ(naive4096->name, "circle");
  EXPECT_EQ(cublas4096->name, "rect");
  const auto [x_n4, y_n4] = centre(naive4096);
  const auto [x_c4, y_c4] = centre(cublas4096);
  const auto [x_n1, y_n1] = centre(naive1024);
  const auto [x_bf, y_bf] = centre(bf16);
  EXPECT_NEAR(x_n4, x_c4, 0.011);  // same shape, same intensity
  EXPECT_LT(x_n1, x_n4);           // log axis: 170.7 left of 682.7 left of 1024
  EXPECT_LT(x_n4, x_bf);
  EXPECT_GT(y_n4, y_c4);  // SVG y grows downwards: 5.6 TFLOP/s below 51.3
  EXPECT_GT(y_c4, y_bf);
  // Log scale: equal ratios are equal distances. 682.7/170.7 = 4 and 1024/682.7 = 1.5.
  EXPECT_NEAR((x_bf - x_n4) / (x_n4 - x_n1), std::log(1.5) / std::log(4.0), 1e-3);

  // The ceilings of both types present, the DRAM roof, axis labels and a legend.
  const std::string text = all_text(*root);
  EXPECT_NE(text.find("FP32 67.0 TFLOP/s"), std::string::npos);
  EXPECT_NE(text.find("BF16 tensor 989.0 TFLOP/s"), std::string::npos);
  EXPECT_NE(text.find("measured FP32 63.8 TFLOP/s"), std::string::npos);
  EXPECT_NE(text.find("DRAM 4800 GB/s"), std::string::npos);
  EXPECT_NE(text.find("arithmetic intensity (FLOP/byte"), std::string::npos);
  EXPECT_NE(text.find("TFLOP/s"), std::string::npos);
  EXPECT_NE(text.find("cuBLAS, bf16->f32"), std::string::npos);
  EXPECT_EQ(text.find("FP16 tensor"), std::string::npos);  // no f16 row, no f16 ceiling
}

TEST(PlotRoofline, DeviceFlagPicksTheCeilings) {
  const tb::PlotResult plot = tb::roofline_svg(slice(), "--input", "--device", "h100", "s.json");
  EXPECT_EQ(plot.device_key, "h100");
  const std::string text = all_text(*parse_xml(plot.svg));
  EXPECT_NE(text.find("DRAM 3350 GB/s"), std::string::npos);
  EXPECT_EQ(text.find("measured"), std::string::npos);  // h100 has no measured entry
  EXPECT_EQ(tb::device_key_for_name("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(tb::device_key_for_name("NVIDIA A100-SXM4-40GB"), "a100-40gb");
  EXPECT_EQ(tb::device_key_for_name("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(tb::device_key_for_name("NVIDIA GeForce RTX 4090"), "");
}

TEST(PlotRoofline, BadInputNamesItsFlag) {
  EXPECT_EQ(error_of([] { tb::roofline_svg(slice(), "--input", "--device", "b200", "s.json"); }),
            "--device: 'b200' is not a known device (want one of a100, h100, h200, a100-40gb, "
            "h200-measured)");
  tb::BenchReport unknown = slice();
  unknown.device.name = "NVIDIA GeForce RTX 4090";
  EXPECT_EQ(
      error_of([&] {
        tb::roofline_svg(unknown, "--input", "--device", "", "s.json");
      }).rfind("--device: cannot tell the device's ceilings from 'NVIDIA GeForce RTX 4090'", 0),
      0u);
  tb::BenchReport none = slice();
  for (tb::BenchRow& r : none.rows) r.status = tb::RowStatus::kNotApplicable;
  EXPECT_EQ(error_of([&] { tb::roofline_svg(none, "--input", "--device", "", "s.json"); }),
            "--input: 's.json' has no row with status ok to draw");
}

TEST(PlotLadder, OneBarPerOkRowBesideCublas) {
  const tb::PlotResult plot = tb::ladder_svg(slice(), "--input", "--shape", std::nullopt, "s.json");
  EXPECT_EQ(plot.marks, 13u);
  EXPECT_EQ(plot.left_out, 1u);
  const auto root = parse_xml(plot.svg);
  const std::vector<const XmlNode*> ms = marks(*root);
  ASSERT_EQ(ms.size(), 13u);
  std::size_t refs = 0;
  root->visit([&](const XmlNode& n) { refs += n.has_class("cublas-ref") ? 1 : 0; });
  EXPECT_EQ(refs, 10u);  // every kernel's bar has its size's cuBLAS tick; cuBLAS's own do not
  for (const XmlNode* m : ms) ASSERT_NE(m->child("title"), nullptr);

  // Bars are proportional to TFLOP/s: naive / cuBLAS at 4096^3 = 5.609 / 51.327.
  const XmlNode* naive = mark_titled(ms,
                                     "naive 4096x4096x4096 row,row,row f32: 5.61 TFLOP/s, "
                                     "0.109x cuBLAS (51.33)");
  const XmlNode* cublas = mark_titled(ms, "cublas 4096x4096x4096 row,row,row f32: 51.33 TFLOP/s");
  ASSERT_TRUE(naive && cublas);
  EXPECT_TRUE(cublas->has_class("cublas"));
  EXPECT_NEAR(attr(naive, "width") / attr(cublas, "width"), 5.60885 / 51.32671, 1e-3);
  // auto's bars name the kernel it chose.
  EXPECT_NE(mark_titled(ms, "auto(cp_async_128x256x16_w64x64_t8x16_s3_lean_mid) 4096x4096x4096"),
            nullptr);
  const std::string text = all_text(*root);
  EXPECT_NE(text.find("rung 1: naive"), std::string::npos);
  EXPECT_NE(text.find("rung 13: mma_sync"), std::string::npos);
  EXPECT_NE(text.find("auto: the dispatcher's choice per shape"), std::string::npos);
  // The file mixes f32 and bf16->f32: series labels say which.
  EXPECT_NE(text.find("cublas [bf16->f32 row,row,row]"), std::string::npos);
  EXPECT_NE(text.find("1024x1024x1024"), std::string::npos);  // the size legend
}

TEST(PlotLadder, ShapeSelectsItsRows) {
  const tb::PlotResult p4096 =
      tb::ladder_svg(slice(), "--input", "--shape", tb::Shape{4096, 4096, 4096}, "s.json");
  EXPECT_EQ(p4096.marks, 8u);  // f32: cublas, naive, smem_tiled_t32, cp_async, auto; bf16: 3
  EXPECT_EQ(marks(*parse_xml(p4096.svg)).size(), 8u);
  const tb::PlotResult p1024 =
      tb::ladder_svg(slice(), "--input", "--shape", tb::Shape{1024, 1024, 1024}, "s.json");
  EXPECT_EQ(marks(*parse_xml(p1024.svg)).size(), 5u);
  EXPECT_EQ(error_of([] {
              tb::ladder_svg(slice(), "--input", "--shape", tb::Shape{512, 512, 512}, "s.json");
            }),
            "--shape: '512x512x512': no row of 's.json' has this shape");
  // 4095^3 has only an N/A row: a shape present with nothing to draw.
  EXPECT_EQ(error_of([] {
              tb::ladder_svg(slice(), "--input", "--shape", tb::Shape{4095, 4095, 4095}, "s.json");
            }),
            "--input: 's.json' has no row with status ok to draw");
}

TEST(PlotSvg, TextIsEscaped) {
  EXPECT_EQ(tb::xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  tb::BenchReport r = slice();
  r.rows.resize(1);
  r.rows[0].kernel = "cublas";
  r.device.name = "NVIDIA H200 <&> \"test\"";
  EXPECT_NO_THROW(parse_xml(tb::roofline_svg(r, "--input", "--device", "", "a&b.json").svg));
  EXPECT_NO_THROW(parse_xml(tb::ladder_svg(r, "--input", "--shape", std::nullopt, "<a>").svg));
}
