// A small line-chart writer for reports: named series of (x, y) points drawn as polylines on
// linear (or log2) x and linear y axes, with an optional horizontal reference line and a legend.
// Self-contained SVG 1.1 text, so a chart committed next to a Markdown report renders on GitHub
// and needs no plotting package on the machine that made it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hgemm::bench {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); non-finite points are skipped
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log2_x = false;  // ticks at powers of two; points with x <= 0 are skipped
  std::optional<double> reference_y;
  std::string reference_label;
  std::vector<ChartSeries> series;  // one colour each, in order; the legend lists them
  int width = 760;
  int height = 460;
};

// The chart as an SVG document. The y range covers every point and the reference line, padded
// by 5% of its span on both sides.
std::string render_svg(const LineChart& chart);

// Text for XML content and attribute values: & < > " ' as entities.
std::string xml_escape(std::string_view text);

}  // namespace hgemm::bench
