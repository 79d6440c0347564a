// training_curves.png: loss and validation accuracy / FP / FN drawn where the layout says, in
// their colours, with labelled axes; read_curves takes the series from metrics.jsonl.
#include "catch_torch.h"

#include <cmath>
#include <fstream>

#include "common/atomic_file.h"
#include "common/run_outputs.h"
#include "train/data/image_codec.h"
#include "train/trainer/curves_plot.h"
#include "train/trainer/metrics_log.h"
#include "trainer_test_util.h"

using namespace lane;

namespace {

int dark_pixels(const cv::Mat& img, const cv::Rect& r) {
  int n = 0;
  for (int y = r.y; y < r.br().y; ++y)
    for (int x = r.x; x < r.br().x; ++x) {
      const auto p = img.at<cv::Vec3b>(y, x);
      n += p[0] < 100 && p[1] < 100 && p[2] < 100;
    }
  return n;
}

bool near_colour(const cv::Mat& img, cv::Point at, const cv::Scalar& c) {
  const auto p = img.at<cv::Vec3b>(at);
  return std::abs(p[0] - c[0]) <= 30 && std::abs(p[1] - c[1]) <= 30 && std::abs(p[2] - c[2]) <= 30;
}

}  // namespace

TEST_CASE("curves: metrics.jsonl series are plotted in their colours, axes labelled, PNG written", "[trainer][fast]") {
  test::ScratchDir dir("curves");
  {
    std::ofstream m(dir.path / "metrics.jsonl");
    for (int s = 1; s <= 40; ++s) m << R"({"kind":"train","step":)" << s << R"(,"loss":)" << 1.0 / s << "}\n";
    m << R"({"kind":"val","step":20,"accuracy":0.6,"fp":0.5,"fn":0.4})" << "\n";
    m << R"({"kind":"val","step":40,"accuracy":0.9,"fp":0.1,"fn":0.2})" << "\n";
  }
  const auto curves = train::read_curves(dir.path / "metrics.jsonl");
  REQUIRE(curves.loss.size() == 40);
  REQUIRE(curves.accuracy.size() == 2);
  CHECK(curves.fp[1].second == Approx(0.1));
  CHECK(curves.fn[0].second == Approx(0.4));

  train::CurvesLayout layout;
  const cv::Mat img = train::render_training_curves(curves, &layout);
  REQUIRE(layout.samples.size() == 40 + 3 * 2);
  for (const auto& [at, colour] : layout.samples) CHECK(near_colour(img, at, colour));
  // Accuracy 0.9 sits above FP 0.1 on the fixed 0..1 axis of the metrics panel.
  const auto acc_px = layout.samples[40 + 1].first, fp_px = layout.samples[40 + 3].first;
  CHECK(acc_px.y < fp_px.y);
  CHECK(layout.metric_plot.contains(acc_px));
  // Four axis labels (x and y of both panels), each a region with drawn text in it.
  REQUIRE(layout.axis_labels.size() == 4);
  CHECK(layout.axis_label_texts[0] == "training step");
  CHECK(layout.axis_label_texts[3] == "rate (0..1)");
  for (const auto& r : layout.axis_labels) CHECK(dark_pixels(img, r) > 20);
  // The y labels are rotated: taller than wide.
  CHECK(layout.axis_labels[1].height > layout.axis_labels[1].width);

  train::plot_training_curves(dir.path / "training_curves.png", curves);
  const cv::Mat png = data::read_image(dir.path / "training_curves.png");
  REQUIRE(!png.empty());
  CHECK(cv::norm(png, img, cv::NORM_INF) == 0);
}

TEST_CASE("curves: round axis ticks (1, 2 or 5 times a power of ten) spanning the data, dashboard colours", "[trainer][fast]") {
  const auto round = [](const train::Ticks& t) {
    for (const double v : t.values)
      if (std::abs(v / t.step - std::round(v / t.step)) > 1e-6) return false;
    const double m = t.step / std::pow(10.0, std::floor(std::log10(t.step) + 1e-9));
    return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
  };
  const auto loss = train::nice_ticks(0.0251, 1.0, 5);
  CHECK(loss.step == Approx(0.2));
  CHECK(loss.values.front() == Approx(0.0));
  CHECK(loss.values.back() == Approx(1.0));
  CHECK(round(loss));
  const auto steps = train::nice_ticks(0, 437, 6);
  CHECK(steps.step == Approx(100));
  CHECK(steps.values == std::vector<double>{0, 100, 200, 300, 400, 500});
  const auto flat = train::nice_ticks(0.37, 0.37, 5);  // one value: an axis around it
  CHECK(flat.lo < 0.37);
  CHECK(flat.hi > 0.37);
  CHECK(round(flat));
  CHECK(round(train::nice_ticks(1.234e-4, 9.87e-3, 5)));

  train::CurveSet c;
  for (int s = 1; s <= 40; ++s) c.loss.emplace_back(s, 1.0 / s);
  c.accuracy = {{20, 0.6}, {40, 0.9}};
  train::CurvesLayout layout;
  const cv::Mat img = train::render_training_curves(c, &layout);
  REQUIRE(layout.x_ticks.size() == 2);
  CHECK(layout.x_ticks[0] == std::vector<double>{0, 10, 20, 30, 40});
  CHECK(layout.y_ticks[0].front() == Approx(0.0));
  CHECK(layout.y_ticks[0].back() == Approx(1.0));
  CHECK(layout.y_ticks[1].size() == 6);  // the metrics' fixed 0..1 axis by 0.2
  CHECK(near_colour(img, layout.samples[0].first, cv::Scalar(236, 111, 47)));  // the dashboard's #2f6fec
}

TEST_CASE("curves: no validation yet draws the loss and an empty metrics panel", "[trainer][fast]") {
  train::CurveSet c;
  c.loss = {{1, 2.0}, {2, 1.0}};
  train::CurvesLayout layout;
  const cv::Mat img = train::render_training_curves(c, &layout);
  CHECK(layout.samples.size() == 2);
  const cv::Rect inner(layout.metric_plot.x + 3, layout.metric_plot.y + 3, layout.metric_plot.width - 6,
                       layout.metric_plot.height - 6);  // inside the frame of the axes
  CHECK(dark_pixels(img, inner) > 20);                  // the "no data" text
  CHECK(dark_pixels(img, cv::Rect(layout.loss_plot.x + 3, layout.loss_plot.y + 3, layout.loss_plot.width - 6,
                                  layout.loss_plot.height - 6)) == 0);  // a curve, no text
}

TEST_CASE("metrics.jsonl: what MetricsLog writes, the curves and a MetricsRecord reader read back", "[trainer][fast]") {
  test::ScratchDir dir("metrics_round_trip");
  const RunLayout run{dir.path};
  const std::vector<MetricsRecord> written = {
      {std::string(MetricsRecord::kTrain), {{"step", 1}, {"epoch", 0}, {"loss", 0.75}, {"lr", 0.01}}},
      {std::string(MetricsRecord::kTrain), {{"step", 2}, {"epoch", 0}, {"loss", 0.5}, {"lr", 0.02}}},
      {std::string(MetricsRecord::kVal), {{"step", 2}, {"epoch", 1}, {"accuracy", 0.8}, {"fp", 0.25}, {"fn", 0.125}}},
  };
  {
    train::MetricsLog log(run.metrics(), -1, false);
    for (const auto& r : written) log.write(r);
  }
  const auto back = parse_metrics_records(lane::read_file(run.metrics()));
  REQUIRE(back.size() == written.size());
  for (size_t i = 0; i < back.size(); ++i) {
    CHECK(back[i].kind == written[i].kind);
    CHECK(back[i].fields == written[i].fields);
  }
  const auto curves = train::read_curves(run.metrics());
  CHECK(curves.loss == std::vector<std::pair<double, double>>{{1, 0.75}, {2, 0.5}});
  CHECK(curves.accuracy == std::vector<std::pair<double, double>>{{2, 0.8}});
  CHECK(curves.fn == std::vector<std::pair<double, double>>{{2, 0.125}});

  // A resumed run keeps the records up to its checkpoint's step.
  { train::MetricsLog resumed(run.metrics(), 1, false); }
  CHECK(parse_metrics_records(lane::read_file(run.metrics())).size() == 1);
}
