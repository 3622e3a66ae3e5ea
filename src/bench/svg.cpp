#include "bench/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace hgemm::bench {
namespace {

// Distinguishable on white and for the common colour-vision deficiencies.
constexpr const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#000000", "#999999"};
constexpr int kLeft = 70, kRight = 190, kTop = 44, kBottom = 56;

std::string num(double v, const char* format = "%.1f") {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A step of 1, 2 or 5 times a power of ten giving about `count` intervals over `span`.
double nice_step(double span, int count) {
  const double raw = span / count;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 5.0})
    if (raw <= f * decade) return f * decade;
  return 10 * decade;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
};

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_svg(const LineChart& chart) {
  auto usable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!chart.log2_x || x > 0);
  };
  auto xv = [&](double x) { return chart.log2_x ? std::log2(x) : x; };
  Range xr, yr;
  for (const ChartSeries& s : chart.series)
    for (const auto& [x, y] : s.points)
      if (usable(x, y)) {
        xr.add(xv(x));
        yr.add(y);
      }
  if (chart.reference_y && std::isfinite(*chart.reference_y)) yr.add(*chart.reference_y);
  if (xr.empty()) xr = {0, 1};
  if (yr.empty()) yr = {0, 1};
  if (xr.hi == xr.lo) xr = {xr.lo - 1, xr.hi + 1};
  const double pad =
      yr.hi > yr.lo ? 0.05 * (yr.hi - yr.lo) : std::max(0.05 * std::abs(yr.hi), 0.5);
  yr = {yr.lo - pad, yr.hi + pad};

  const double pw = chart.width - kLeft - kRight, ph = chart.height - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (xv(x) - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto py = [&](double y) { return kTop + (yr.hi - y) / (yr.hi - yr.lo) * ph; };

  const std::string w = std::to_string(chart.width), h = std::to_string(chart.height);
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
                    "\" viewBox=\"0 0 " + w + " " + h +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + num(chart.width / 2.0) + "\" y=\"24\" text-anchor=\"middle\" "
         "font-size=\"15\">" + xml_escape(chart.title) + "</text>\n";

  // Grid and tick labels.
  auto hline = [&](double y, const std::string& style) {
    return "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(py(y)) + "\" x2=\"" + num(kLeft + pw) +
           "\" y2=\"" + num(py(y)) + "\" " + style + "/>\n";
  };
  const double ystep = nice_step(yr.hi - yr.lo, 6);
  for (double i = std::ceil(yr.lo / ystep), y = i * ystep; y <= yr.hi; y = ++i * ystep) {
    svg += hline(y, "stroke=\"#e0e0e0\"");
    svg += "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(py(y) + 4) +
           "\" text-anchor=\"end\">" + num(std::abs(y) < ystep / 2 ? 0 : y, "%g") + "</text>\n";
  }
  std::vector<double> xticks;
  if (chart.log2_x) {
    const int first = int(std::ceil(xr.lo)), last = int(std::floor(xr.hi));
    const int every = std::max(1, (last - first) / 10 + 1);
    for (int e = first; e <= last; e += every) xticks.push_back(std::exp2(e));
  } else {
    const double xstep = nice_step(xr.hi - xr.lo, 8);
    for (double i = std::ceil(xr.lo / xstep), x = i * xstep; x <= xr.hi; x = ++i * xstep)
      xticks.push_back(x);
  }
  for (double x : xticks) {
    svg += "<line x1=\"" + num(px(x)) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(px(x)) +
           "\" y2=\"" + num(kTop + ph) + "\" stroke=\"#e0e0e0\"/>\n";
    svg += "<text x=\"" + num(px(x)) + "\" y=\"" + num(kTop + ph + 18) +
           "\" text-anchor=\"middle\">" + num(x, x >= 1e5 ? "%.2g" : "%g") + "</text>\n";
  }
  svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(pw) +
         "\" height=\"" + num(ph) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  svg += "<text x=\"" + num(kLeft + pw / 2) + "\" y=\"" + num(chart.height - 14.0) +
         "\" text-anchor=\"middle\">" + xml_escape(chart.x_label) + "</text>\n";
  svg += "<text transform=\"translate(18 " + num(kTop + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(chart.y_label) + "</text>\n";

  if (chart.reference_y && std::isfinite(*chart.reference_y)) {
    svg += hline(*chart.reference_y, "stroke=\"#666\" stroke-dasharray=\"6 4\"");
    // At the left end: search curves rise from the left, so that end is usually clear.
    svg += "<text x=\"" + num(kLeft + 6) + "\" y=\"" + num(py(*chart.reference_y) - 5) +
           "\" fill=\"#444\">" + xml_escape(chart.reference_label) + "</text>\n";
  }

  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const std::string colour = kColours[i % std::size(kColours)];
    std::string points;
    for (const auto& [x, y] : s.points) {
      if (!usable(x, y)) continue;
      if (!points.empty()) points += ' ';
      points += num(px(x)) + "," + num(py(y));
    }
    svg += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\" points=\"" +
           points + "\"><title>" + xml_escape(s.name) + "</title></polyline>\n";
    const double ly = kTop + 10 + 20.0 * double(i);
    svg += "<line x1=\"" + num(kLeft + pw + 14) + "\" y1=\"" + num(ly) + "\" x2=\"" +
           num(kLeft + pw + 38) + "\" y2=\"" + num(ly) + "\" stroke=\"" + colour +
           "\" stroke-width=\"2\"/>\n";
    svg += "<text x=\"" + num(kLeft + pw + 44) + "\" y=\"" + num(ly + 4) + "\">" +
           xml_escape(s.name) + "</text>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace hgemm::bench
