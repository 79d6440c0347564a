#include "train/data/synth.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "train/data/frame_transform.h"
#include "train/data/image_codec.h"
#include "train/data/list_writer.h"

namespace lane::data {
namespace {

constexpr int kW = 1280, kH = 720;

// Platform-independent random numbers (splitmix64), so a seed gives the same data everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  double uniform(double lo, double hi) {
    state_ = mix_seed(state_, 0x51ed27ULL);
    return lo + (hi - lo) * double(state_ >> 11) * (1.0 / 9007199254740992.0);
  }
  int integer(int lo, int hi) { return std::min(hi, int(std::floor(uniform(lo, hi + 1)))); }  // [lo, hi]
  bool chance(double p) { return uniform(0, 1) < p; }
  uint64_t raw() { return state_ = mix_seed(state_, 0xabcdefULL); }

 private:
  uint64_t state_;
};

struct Road {
  double horizon;     // vanishing-point row
  double vx;          // vanishing-point column
  double curvature;   // horizontal shift at the horizon, fading towards the bottom
  double t_visible;   // lanes are drawn/labelled where depth parameter t >= this
  double x_at(double lateral, double y) const {  // lateral: x offset at the bottom row
    const double t = (y - horizon) / (kH - horizon);
    return vx + lateral * t + curvature * (1 - t) * (1 - t);
  }
  double t_of(double y) const { return (y - horizon) / (kH - horizon); }
};

struct LaneLine {
  double lateral;      // px offset from vx at the bottom row
  bool dashed;
  double dash_period, dash_duty, dash_phase;  // in inverse-depth units (1/t)
  double width;        // marking width at the bottom row, px
  cv::Scalar colour;
};

struct Vehicle {
  cv::Rect box;
  cv::Scalar colour;
};

void draw_background(cv::Mat& img, const Road& road, Rng& rng, const std::vector<LaneLine>& lines) {
  const int hz = int(road.horizon);
  const cv::Scalar sky_top(rng.uniform(150, 235), rng.uniform(120, 200), rng.uniform(90, 160));
  const cv::Scalar sky_low(rng.uniform(180, 250), rng.uniform(180, 240), rng.uniform(170, 230));
  for (int y = 0; y < hz; ++y) {
    const double a = double(y) / std::max(1, hz);
    img.row(y).setTo(sky_top * (1 - a) + sky_low * a);
  }
  const double grey = rng.uniform(70, 125);
  img.rowRange(hz, kH).setTo(cv::Scalar(grey + rng.uniform(-6, 6), grey, grey + rng.uniform(-6, 6)));
  // Shoulders beyond the outermost lines: grass or gravel.
  const cv::Scalar side = rng.chance(0.6) ? cv::Scalar(rng.uniform(30, 70), rng.uniform(90, 140), rng.uniform(50, 90))
                                          : cv::Scalar(rng.uniform(110, 150), rng.uniform(120, 160), rng.uniform(130, 170));
  const double margin = rng.uniform(80, 260);
  double left = 1e9, right = -1e9;
  for (const auto& l : lines) left = std::min(left, l.lateral), right = std::max(right, l.lateral);
  for (bool is_left : {true, false}) {
    const double edge = is_left ? left - margin : right + margin;
    std::vector<cv::Point> poly;
    for (int y = hz; y <= kH; y += 10) poly.emplace_back(int(road.x_at(edge, y)), y);
    poly.emplace_back(is_left ? -2000 : kW + 2000, kH);
    poly.emplace_back(is_left ? -2000 : kW + 2000, hz);
    cv::fillPoly(img, std::vector<std::vector<cv::Point>>{poly}, side);
  }
}

void draw_line_marking(cv::Mat& img, const Road& road, const LaneLine& line) {
  const int y0 = int(std::ceil(road.horizon + road.t_visible * (kH - road.horizon)));
  for (int y = y0; y < kH; y += 3) {
    const double ya = y, yb = std::min<double>(y + 3, kH);
    const double ta = road.t_of(ya), tb = road.t_of(yb);
    if (line.dashed) {
      const double z = 1.0 / (0.5 * (ta + tb));  // inverse depth
      const double phase = std::fmod(z / line.dash_period + line.dash_phase, 1.0);
      if (phase > line.dash_duty) continue;
    }
    const double xa = road.x_at(line.lateral, ya), xb = road.x_at(line.lateral, yb);
    const double wa = std::max(1.0, line.width * ta) / 2, wb = std::max(1.0, line.width * tb) / 2;
    const cv::Point quad[4] = {cv::Point(int(xa - wa), int(ya)), cv::Point(int(xa + wa), int(ya)),
                               cv::Point(int(xb + wb), int(yb)), cv::Point(int(xb - wb), int(yb))};
    cv::fillConvexPoly(img, quad, 4, line.colour, cv::LINE_AA);
  }
}

void draw_shadows(cv::Mat& img, const Road& road, Rng& rng) {
  const int count = rng.integer(0, 3);
  for (int i = 0; i < count; ++i) {
    const double y = rng.uniform(road.horizon + 40, kH - 40);
    const double h = rng.uniform(30, 160), x = rng.uniform(-200, kW), w = rng.uniform(150, 700);
    const std::vector<cv::Point> poly = {
        cv::Point(int(x), int(y)), cv::Point(int(x + w), int(y + rng.uniform(-20, 20))),
        cv::Point(int(x + w + rng.uniform(-80, 80)), int(y + h)), cv::Point(int(x + rng.uniform(-80, 80)), int(y + h))};
    const double factor = rng.uniform(0.45, 0.75);
    const cv::Rect box = cv::boundingRect(poly) & cv::Rect(0, 0, kW, kH);
    if (box.empty()) continue;
    // Work on the bounding box only: shadows are small next to the frame.
    cv::Mat mask(box.size(), CV_8UC1, cv::Scalar(0));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(255), cv::LINE_8, 0, -box.tl());
    cv::Mat roi = img(box), darker;
    roi.convertTo(darker, -1, factor, 0);
    darker.copyTo(roi, mask);
  }
}

std::vector<Vehicle> place_vehicles(const Road& road, const std::vector<LaneLine>& lines, double lane_width, Rng& rng) {
  std::vector<Vehicle> out;
  const int count = rng.integer(0, 2);
  for (int i = 0; i < count && lines.size() >= 2; ++i) {
    const size_t gap = size_t(rng.integer(0, int(lines.size()) - 2));  // between lines gap and gap+1
    const double lateral = 0.5 * (lines[gap].lateral + lines[gap + 1].lateral) + rng.uniform(-0.1, 0.1) * lane_width;
    const double t = rng.uniform(0.12, 0.45);
    const double y = road.horizon + t * (kH - road.horizon);
    const double w = lane_width * t * rng.uniform(0.65, 0.85), h = w * rng.uniform(0.7, 1.0);
    const double x = road.x_at(lateral, y);
    Vehicle v;
    v.box = cv::Rect(int(x - w / 2), int(y - h), int(w), int(h));
    v.colour = cv::Scalar(rng.uniform(20, 230), rng.uniform(20, 230), rng.uniform(20, 230));
    out.push_back(v);
  }
  // Far vehicles first, so nearer ones are painted over them.
  std::sort(out.begin(), out.end(), [](const Vehicle& a, const Vehicle& b) { return a.box.br().y < b.box.br().y; });
  return out;
}

void draw_vehicle(cv::Mat& img, const Vehicle& v) {
  const cv::Rect b = v.box;
  cv::ellipse(img, cv::Point(b.x + b.width / 2, b.br().y), cv::Size(b.width * 6 / 10, std::max(2, b.height / 10)), 0, 0,
              360, cv::Scalar(15, 15, 15), cv::FILLED);  // contact shadow
  cv::rectangle(img, b, v.colour, cv::FILLED);
  cv::rectangle(img, cv::Rect(b.x + b.width / 8, b.y + b.height / 8, b.width * 3 / 4, b.height / 3),
                cv::Scalar(40, 35, 30), cv::FILLED);  // rear window
  cv::rectangle(img, cv::Rect(b.x + b.width / 10, b.y + b.height * 6 / 10, b.width / 6, b.height / 10),
                cv::Scalar(20, 20, 200), cv::FILLED);  // tail lights
  cv::rectangle(img, cv::Rect(b.br().x - b.width / 10 - b.width / 6, b.y + b.height * 6 / 10, b.width / 6, b.height / 10),
                cv::Scalar(20, 20, 200), cv::FILLED);
}

std::string json_line(const LaneLabel& label) {
  nlohmann::ordered_json j;
  j["lanes"] = label.lanes;
  j["h_samples"] = label.h_samples;
  j["raw_file"] = label.raw_file;
  return j.dump();
}

}  // namespace

std::vector<int> synth_h_samples() {
  std::vector<int> rows;
  for (int y = 160; y <= 710; y += 10) rows.push_back(y);
  return rows;
}

namespace {

// 2..5 lane lines, at most 3 on each side of the camera (the 6 label slots), `lane_width` apart.
std::vector<LaneLine> random_lane_lines(Rng& rng, double* lane_width) {
  const int total = rng.integer(2, 5);
  const int left = std::clamp(rng.integer(1, total - 1), total - 3, 3);
  *lane_width = rng.uniform(560, 720);
  const double ego_offset = rng.uniform(-0.2, 0.2) * *lane_width;
  std::vector<LaneLine> lines;
  for (int i = 0; i < total; ++i) {
    const int k = i < left ? i - left : i - left + 1;  // ..., -2, -1 | 1, 2, ...
    LaneLine l;
    l.lateral = ego_offset + (k < 0 ? (k + 0.5) : (k - 0.5)) * *lane_width;
    const bool outer = i == 0 || i == total - 1;
    l.dashed = outer ? rng.chance(0.2) : rng.chance(0.75);
    l.dash_period = rng.uniform(0.35, 0.6);
    l.dash_duty = rng.uniform(0.4, 0.6);
    l.dash_phase = rng.uniform(0, 1);
    l.width = rng.uniform(20, 32);
    const double bright = rng.uniform(185, 255);
    l.colour = (outer && rng.chance(0.25)) ? cv::Scalar(bright * 0.2, bright * 0.8, bright)  // yellow (BGR)
                                           : cv::Scalar(bright, bright, bright);
    lines.push_back(l);
  }
  return lines;
}

// Lighting, low-frequency texture (patches, uneven light) and sensor noise, in one pass.
void light_and_noise(cv::Mat& image, Rng& rng) {
  const double gain = rng.uniform(0.7, 1.25), bias = rng.uniform(-15, 15);
  cv::Mat coarse(9, 16, CV_16SC3);
  for (int y = 0; y < coarse.rows; ++y)
    for (int x = 0; x < coarse.cols; ++x) {
      const short v = short(rng.uniform(-14, 14));
      coarse.at<cv::Vec3s>(y, x) = cv::Vec3s(v, v, v);
    }
  cv::Mat perturbation;
  cv::resize(coarse, perturbation, image.size(), 0, 0, cv::INTER_LINEAR);
  const double noise_amplitude = rng.uniform(3, 10);
  cv::Mat noise(image.size(), CV_16SC3);
  cv::RNG cv_rng(rng.raw());
  cv_rng.fill(noise, cv::RNG::UNIFORM, cv::Scalar::all(-noise_amplitude), cv::Scalar::all(noise_amplitude));
  perturbation += noise;
  cv::Mat lit;
  image.convertTo(lit, CV_16SC3, gain, bias);
  lit += perturbation;
  lit.convertTo(image, CV_8UC3);
}

// The label: the marking centre at every sampled row where the line is visible and in frame,
// -2 above the visible range, outside the frame and behind vehicles; lines with fewer than two
// such points are left out.
LaneLabel label_of(const Road& road, const std::vector<LaneLine>& lines, const std::vector<Vehicle>& vehicles) {
  LaneLabel label;
  label.h_samples = synth_h_samples();
  for (const auto& l : lines) {
    std::vector<int> xs;
    int valid = 0;
    for (int y : label.h_samples) {
      const double t = road.t_of(y);
      const int x = int(std::lround(road.x_at(l.lateral, y)));
      bool visible = t >= road.t_visible && x >= 0 && x < kW;
      for (const auto& v : vehicles)
        if (v.box.contains(cv::Point(x, y))) visible = false;
      xs.push_back(visible ? x : kNoPoint);
      valid += visible;
    }
    if (valid >= 2) label.lanes.push_back(std::move(xs));
  }
  return label;
}

}  // namespace

SynthFrame render_synth_frame(uint64_t frame_seed) {
  Rng rng(frame_seed);
  Road road;
  road.horizon = rng.uniform(235, 290);
  road.vx = rng.uniform(540, 740);
  road.curvature = rng.chance(0.7) ? rng.uniform(-260, 260) : 0.0;
  road.t_visible = rng.uniform(0.06, 0.12);
  double lane_width = 0;
  const std::vector<LaneLine> lines = random_lane_lines(rng, &lane_width);

  SynthFrame frame;
  frame.image = cv::Mat(kH, kW, CV_8UC3);
  draw_background(frame.image, road, rng, lines);
  for (const auto& l : lines) draw_line_marking(frame.image, road, l);
  draw_shadows(frame.image, road, rng);
  const auto vehicles = place_vehicles(road, lines, lane_width, rng);
  for (const auto& v : vehicles) draw_vehicle(frame.image, v);
  light_and_noise(frame.image, rng);
  frame.label = label_of(road, lines, vehicles);
  return frame;
}

namespace {

void write_frame(const std::filesystem::path& path, const cv::Mat& image, int quality) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", path.parent_path().string(), ec.message()));
  write_jpeg(path, image, quality);
}

}  // namespace

SynthSummary generate_synth_dataset(const SynthOptions& o) {
  if (o.out.empty()) throw UsageError("--out is required: the folder to write the data set to");
  if (o.frames < 1) throw UsageError(fmt::format("--frames is {}; it must be at least 1", o.frames));
  if (!(o.val_fraction >= 0) || !(o.test_fraction >= 0) || !(o.val_fraction + o.test_fraction < 1))  // nan too
    throw UsageError("--val-fraction and --test-fraction must be >= 0 and leave some frames for training");
  if (o.threads < 0) throw UsageError(fmt::format("--threads is {}; use 0 (one per core) or a positive count", o.threads));
  if (o.jpeg_quality < 1 || o.jpeg_quality > 100) throw UsageError("jpeg quality must be in 1..100");

  // Split by position: the first frames train, then val, then test.
  const int n_test = int(std::lround(o.frames * o.test_fraction));
  const int n_val = int(std::lround(o.frames * o.val_fraction));
  const int n_train = o.frames - n_val - n_test;
  if (n_train < 1) throw UsageError("the split leaves no training frames; lower --val-fraction / --test-fraction");
  auto split_of = [&](int i) { return i < n_train ? "train" : (i < n_train + n_val ? "val" : "test"); };

  std::vector<LaneLabel> labels(size_t(o.frames));
  std::atomic<int> next{0};
  std::string failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (int i = next++; i < o.frames; i = next++) {
      SynthFrame f = render_synth_frame(mix_seed(o.seed, uint64_t(i)));
      f.label.raw_file = fmt::format("clips/synth-{}/{:06d}/20.jpg", split_of(i), i);
      try {
        write_frame(o.out / f.label.raw_file, f.image, o.jpeg_quality);
      } catch (const Error& e) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        failure = e.what();
        return;
      }
      labels[size_t(i)] = std::move(f.label);
    }
  };
  int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, o.frames);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (!failure.empty()) throw Error(failure);

  SynthSummary summary{n_train, n_val, n_test, {}};
  std::filesystem::create_directories(o.out / "lists");
  for (const char* split : {"train", "val", "test"}) {
    std::vector<LaneLabel> part;
    for (int i = 0; i < o.frames; ++i)
      if (std::string(split_of(i)) == split) part.push_back(labels[size_t(i)]);
    if (part.empty()) continue;
    std::string text;
    for (const auto& l : part) text += json_line(l) + "\n";
    const std::string name = fmt::format("label_data_{}.json", split);
    write_file_atomic(o.out / name, text);
    summary.label_files.push_back(name);
    const std::string list = std::string(split) == "test" ? "list_test.txt" : fmt::format("list6_{}.txt", split);
    write_list_file(o.out / "lists" / list, part, 6);
  }
  return summary;
}

}  // namespace lane::data
