#pragma once
// Probability maps -> TuSimple lanes (SCNN's getLane.py recipe): for each lane class whose
// existence passes the threshold, box-blur its map, take the per-row argmax at the h_samples,
// keep it when the probability exceeds prob_threshold, and scale back to the 1280x720 frame.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "train/eval/lane_fit.h"

namespace lane::eval {

struct PostprocessOptions {
  int frame_width = 1280, frame_height = 720;  // original frame
  int crop_top = 0;             // rows cut off the top of the frame before resizing to the network input
  std::vector<int> h_samples;   // rows of the original frame; 160..710 step 10 when empty
  double exist_threshold = 0.5, prob_threshold = 0.3;
  int blur_kernel = 9;          // box blur size (BORDER_REPLICATE); <= 1 disables it
  int min_points = 2;           // lanes with fewer points are dropped
  int max_lanes = 5;            // keep the most confident lanes when more pass
  // Sub-pixel x: when > 0, x is the probability-weighted mean column within this many map
  // columns of the argmax, mapped with the pixel-centre convention of the resize
  // ((col + 0.5) * scale - 0.5). SCNN's maps are bilinearly upsampled from 1/8 resolution, so
  // a plain argmax snaps to every 8th column: 64 frame px at a 160-wide input, beyond the
  // metric's 20 px. 0 keeps the recipe's integer argmax (x = col * scale).
  int subpixel_radius = 0;
  // Rows between two detected points of a lane whose probability stayed under prob_threshold
  // (gaps between dashes, shadows) get x by linear interpolation between their neighbours, so a
  // dashed lane is not scored as missing in the gaps. Off in the recipe.
  bool fill_gaps = false;
  // fill_gaps and the lane fit fill a run of missing rows between two detected points only when
  // it is at most this many h_samples long; a longer run (a lane hidden behind a vehicle) stays
  // empty, as the label leaves it. < 0: every run is filled.
  int max_gap_rows = -1;
  // Lane ends: a point also needs at least this share of the lane's median row peak. Maps
  // upsampled from 1/8 resolution fall off over half a logit cell beyond a lane's true end, so
  // a fixed threshold extends every lane by several h_samples (each a miss of the metric); the
  // true end sits near half of the peak. 0 turns it off.
  double relative_threshold = 0.0;
  // A row whose peak lies within this many map columns of the left or right border has no
  // point: a lane that leaves the frame at the side still has its largest probability in the
  // border column of the rows below (the map's tail of the lane), which is no lane position;
  // the label has no point there. 0 keeps such peaks.
  int border_columns = 0;
  // Lane-shape prior (lane_fit.h): each lane's points are replaced by a robust polynomial x(y)
  // through them (weights: the row peaks), resampled at every h_sample from its first to its
  // last detected row; applied after the thresholds, before fill_gaps (which it makes moot).
  // degree 0 (the default here) leaves the points as decoded.
  LaneFitOptions lane_fit;
};

// The TuSimple test rows: 160, 170, ..., 710.
std::vector<int> default_h_samples();

// lane_probs[i]: CV_32F map (network input resolution) of the softmax probability of lane class
// i+1; existence[i] its existence probability. Returns lanes in slot order, one x per h_sample
// (-2 = no point), in original-frame pixels.
std::vector<std::vector<double>> probabilities_to_lanes(const std::vector<cv::Mat>& lane_probs,
                                                        const std::vector<float>& existence,
                                                        const PostprocessOptions& options);

// One submission line: {"h_samples", "lanes", "run_time", "raw_file"}.
nlohmann::json submission_line(const std::string& raw_file, const std::vector<std::vector<double>>& lanes,
                               const std::vector<int>& h_samples, double run_time_ms);

}  // namespace lane::eval
