#pragma once
// Lane-shape prior for decoded lanes: a robust low-order polynomial x(y) through a lane's points,
// resampled at every h_sample between the lane's first and last detected rows (gaps longer than
// max_gap_rows stay empty). A lane seen in perspective is a smooth curve in the image (a straight
// lane is a straight line), so a point far from the curve that the rest of the lane supports is
// a decoding error (the row peak jumped to a neighbouring lane where lanes converge, or onto a
// vehicle), not the lane.
#include <vector>

namespace lane::eval {

struct LaneFitOptions {
  int degree = 0;             // polynomial order in the frame row; 0 disables the fit
  int min_points = 4;         // fewer detected points: the lane is left as decoded
  // Start: of the curves of degree min(degree, 2) through 2-3 of the lane's points, the one
  // whose points within consensus_px carry the most row-peak weight (deterministic RANSAC);
  // then iteratively reweighted least squares with Tukey's biweight: a point whose residual exceeds
  // tukey_c robust standard deviations (1.4826 x the median absolute residual, at least
  // min_scale_px) gets weight 0. Each point's base weight is its row-peak probability.
  double consensus_px = 12.0;
  int iterations = 8;
  double tukey_c = 4.685;
  double min_scale_px = 4.0;
  int extend_rows = 0;        // also fill this many h_samples beyond each end (occluded lane ends)
  // A run of more than this many rows without a detected point between two detected points is
  // left empty instead of resampled (a lane hidden behind a vehicle); < 0 resamples every row.
  int max_gap_rows = -1;
  double frame_width = 1280;  // a resampled x outside [0, frame_width) is no point
};

// xs: one x per row of ys (< 0 = no point), weights: the same length (row-peak probability of
// each detected point; ignored where xs < 0). Returns the lane resampled on the robust fit, or xs
// unchanged when the fit is off or the lane has fewer than min_points points. A lane with fewer
// points than degree + 2 is fitted with the highest degree its points support (at most
// points - 2, at least 1).
std::vector<double> fit_lane(const std::vector<double>& xs, const std::vector<int>& ys,
                             const std::vector<double>& weights, const LaneFitOptions& options);

// The coefficients (lowest order first) of the robust fit of x on the normalised row
// t = (y - y_mid) / y_half used by fit_lane; exposed for tests. Empty when not fitted.
struct LanePolynomial {
  std::vector<double> coefficients;
  double y_mid = 0, y_half = 1;
  double operator()(double y) const;
};
LanePolynomial robust_polynomial(const std::vector<double>& xs, const std::vector<int>& ys,
                                 const std::vector<double>& weights, const LaneFitOptions& options);

}  // namespace lane::eval
