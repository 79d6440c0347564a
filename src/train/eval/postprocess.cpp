#include "train/eval/postprocess.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <opencv2/imgproc.hpp>

#include "common/error.h"
#include "train/data/tusimple_labels.h"

namespace lane::eval {
namespace {

void check_inputs(const std::vector<cv::Mat>& lane_probs, const std::vector<float>& existence,
                  const PostprocessOptions& o) {
  if (lane_probs.size() != existence.size())
    throw UsageError(fmt::format("post-processing got {} probability maps but {} existence values; pass one per lane class",
                                 lane_probs.size(), existence.size()));
  for (size_t i = 0; i < lane_probs.size(); ++i) {
    const cv::Mat& m = lane_probs[i];
    if (m.empty() || m.type() != CV_32FC1)
      throw UsageError(fmt::format("probability map {} must be a non-empty single-channel CV_32F matrix", i));
    if (m.size() != lane_probs[0].size())
      throw UsageError(fmt::format("probability map {} is {}x{} but map 0 is {}x{}; all maps need one size", i, m.cols,
                                   m.rows, lane_probs[0].cols, lane_probs[0].rows));
  }
  if (o.frame_width <= 0 || o.frame_height <= 0 || o.crop_top < 0 || o.crop_top >= o.frame_height)
    throw UsageError(fmt::format("post-processing frame {}x{} with crop_top {} is invalid; need 0 <= crop_top < height",
                                 o.frame_width, o.frame_height, o.crop_top));
  if (o.max_lanes < 0 || o.min_points < 0 || o.subpixel_radius < 0 || o.border_columns < 0)
    throw UsageError("post-processing max_lanes, min_points, subpixel_radius and border_columns must not be negative");
}

// Row of the network map that shows frame row y: the frame is cropped by crop_top, then the
// remaining (frame_height - crop_top) rows are resized to map_rows. -1 for rows cropped away.
int map_row_for(int y, int map_rows, const PostprocessOptions& o) {
  if (y < o.crop_top || y >= o.frame_height) return -1;
  const double scale = static_cast<double>(map_rows) / static_cast<double>(o.frame_height - o.crop_top);
  return std::clamp(static_cast<int>((y - o.crop_top) * scale), 0, map_rows - 1);
}

// Probability-weighted mean column of `row` in a window of `radius` columns, started at `peak`
// and re-centred on the mean a few times (mean shift), so that a window that starts at one end
// of a flat top still settles on its centre.
double weighted_column(const cv::Mat& row, int peak, int radius) {
  double centre = peak;
  for (int iteration = 0; iteration < 4; ++iteration) {
    const int mid = static_cast<int>(std::lround(centre));
    const int lo = std::max(0, mid - radius), hi = std::min(row.cols - 1, mid + radius);
    double sum = 0, weighted = 0;
    for (int c = lo; c <= hi; ++c) {
      const double p = row.at<float>(0, c);
      sum += p;
      weighted += p * c;
    }
    if (sum <= 0) break;
    centre = weighted / sum;
  }
  return centre;
}

// Linear interpolation in y over the missing rows between two detected points, when there are
// at most max_rows of them (< 0: any number).
void fill_gaps(std::vector<double>& xs, const std::vector<int>& ys, int max_rows) {
  int prev = -1;
  for (int k = 0; k < static_cast<int>(xs.size()); ++k) {
    if (xs[k] < 0) continue;
    if (prev >= 0 && k - prev > 1 && (max_rows < 0 || k - prev - 1 <= max_rows))
      for (int j = prev + 1; j < k; ++j) {
        const double t = static_cast<double>(ys[j] - ys[prev]) / static_cast<double>(ys[k] - ys[prev]);
        xs[j] = xs[prev] + t * (xs[k] - xs[prev]);
      }
    prev = k;
  }
}

}  // namespace

std::vector<int> default_h_samples() {
  std::vector<int> rows;
  for (int y = 160; y <= 710; y += 10) rows.push_back(y);
  return rows;
}

std::vector<std::vector<double>> probabilities_to_lanes(const std::vector<cv::Mat>& lane_probs,
                                                        const std::vector<float>& existence,
                                                        const PostprocessOptions& options) {
  check_inputs(lane_probs, existence, options);
  const std::vector<int> h_samples = options.h_samples.empty() ? default_h_samples() : options.h_samples;

  struct Candidate {
    float existence;
    std::vector<double> xs;
  };
  std::vector<Candidate> kept;
  for (size_t lane = 0; lane < lane_probs.size(); ++lane) {
    if (existence[lane] <= options.exist_threshold) continue;
    cv::Mat prob;
    if (options.blur_kernel > 1)
      cv::blur(lane_probs[lane], prob, cv::Size(options.blur_kernel, options.blur_kernel), cv::Point(-1, -1),
               cv::BORDER_REPLICATE);
    else
      prob = lane_probs[lane];
    const double x_scale = static_cast<double>(options.frame_width) / prob.cols;

    std::vector<double> xs(h_samples.size(), static_cast<double>(data::kNoPoint));
    std::vector<double> peaks(h_samples.size(), 0.0);
    std::vector<double> kept_peaks;
    for (size_t k = 0; k < h_samples.size(); ++k) {
      const int row = map_row_for(h_samples[k], prob.rows, options);
      if (row < 0) continue;
      double best = 0;
      cv::Point at;
      cv::minMaxLoc(prob.row(row), nullptr, &best, nullptr, &at);  // first maximum, like np.argmax
      const bool at_border = at.x < options.border_columns || at.x >= prob.cols - options.border_columns;
      if (best > options.prob_threshold && !at_border) {
        xs[k] = options.subpixel_radius > 0
                    ? (weighted_column(prob.row(row), at.x, options.subpixel_radius) + 0.5) * x_scale - 0.5
                    : at.x * x_scale;
        peaks[k] = best;
        kept_peaks.push_back(best);
      }
    }
    if (options.relative_threshold > 0 && !kept_peaks.empty()) {
      std::nth_element(kept_peaks.begin(), kept_peaks.begin() + kept_peaks.size() / 2, kept_peaks.end());
      const double floor = options.relative_threshold * kept_peaks[kept_peaks.size() / 2];
      for (size_t k = 0; k < xs.size(); ++k)
        if (xs[k] >= 0 && peaks[k] < floor) xs[k] = data::kNoPoint;
    }
    int points = 0;
    for (double x : xs) points += x >= 0;
    if (options.lane_fit.degree > 0) {
      LaneFitOptions fit = options.lane_fit;
      fit.frame_width = options.frame_width;
      fit.max_gap_rows = options.max_gap_rows;
      xs = fit_lane(xs, h_samples, peaks, fit);
    }
    if (options.fill_gaps) fill_gaps(xs, h_samples, options.max_gap_rows);
    if (points >= options.min_points) kept.push_back({existence[lane], std::move(xs)});
  }

  // Prune to max_lanes by existence confidence, keeping the survivors in slot order.
  std::vector<size_t> order(kept.size());
  std::iota(order.begin(), order.end(), 0);
  if (kept.size() > static_cast<size_t>(options.max_lanes)) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return kept[a].existence > kept[b].existence; });
    order.resize(options.max_lanes);
    std::sort(order.begin(), order.end());
  }
  std::vector<std::vector<double>> lanes;
  for (size_t i : order) lanes.push_back(std::move(kept[i].xs));
  return lanes;
}

nlohmann::json submission_line(const std::string& raw_file, const std::vector<std::vector<double>>& lanes,
                               const std::vector<int>& h_samples, double run_time_ms) {
  for (size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].size() != h_samples.size())
      throw UsageError(fmt::format("lane {} of '{}' has {} values but there are {} h_samples", i, raw_file,
                                   lanes[i].size(), h_samples.size()));
  nlohmann::json j;
  j["h_samples"] = h_samples;
  j["lanes"] = lanes;
  j["run_time"] = run_time_ms;
  j["raw_file"] = raw_file;
  return j;
}

}  // namespace lane::eval
