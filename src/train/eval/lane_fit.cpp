#include "train/eval/lane_fit.h"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>

#include "train/data/tusimple_labels.h"

namespace lane::eval {
namespace {

struct Point {
  double t, x, w;  // normalised row, frame x, base weight
};

// Weighted least squares of x on 1, t, ..., t^degree (SVD, so a degenerate set does not throw).
std::vector<double> weighted_fit(const std::vector<Point>& pts, const std::vector<double>& w, int degree) {
  cv::Mat a(static_cast<int>(pts.size()), degree + 1, CV_64F), b(static_cast<int>(pts.size()), 1, CV_64F);
  for (size_t i = 0; i < pts.size(); ++i) {
    const double s = std::sqrt(std::max(0.0, w[i]));
    double p = 1;
    for (int d = 0; d <= degree; ++d, p *= pts[i].t) a.at<double>(static_cast<int>(i), d) = s * p;
    b.at<double>(static_cast<int>(i), 0) = s * pts[i].x;
  }
  cv::Mat c;
  cv::solve(a, b, c, cv::DECOMP_SVD);
  return std::vector<double>(c.begin<double>(), c.end<double>());
}

double evaluate(const std::vector<double>& c, double t) {
  double x = 0;
  for (size_t d = c.size(); d-- > 0;) x = x * t + c[d];
  return x;
}

// Value at t of the polynomial through the given points (Lagrange form; distinct t).
double through(const Point* const* p, int n, double t) {
  double x = 0;
  for (int i = 0; i < n; ++i) {
    double l = 1;
    for (int j = 0; j < n; ++j)
      if (j != i) l *= (t - p[j]->t) / (p[i]->t - p[j]->t);
    x += l * p[i]->x;
  }
  return x;
}

// Robust start (deterministic RANSAC): every curve of degree min(degree, 2) through 2 or 3 of
// up to 12 evenly spread points (220 curves) is a hypothesis; the one whose points within `tolerance` px
// carry the most weight wins. Returns the base weights of its inliers (0 elsewhere). A plain
// least-squares start would bend towards a run of outliers at one end of the lane and the
// reweighting would then settle on that wrong curve.
std::vector<double> consensus_weights(const std::vector<Point>& pts, int degree, double tolerance) {
  const int n = static_cast<int>(pts.size()), k = std::min(degree, 2) + 1;
  std::vector<int> idx;
  const int m = std::min(n, 12);
  for (int i = 0; i < m; ++i) idx.push_back(static_cast<int>(std::lround(i * (n - 1) / std::max(1.0, m - 1.0))));
  double best = -1;
  std::vector<double> w(pts.size(), 0.0);
  std::vector<double> cand(pts.size());
  const Point* p[3];
  auto consider = [&] {
    double score = 0;
    for (int i = 0; i < n; ++i) {
      cand[i] = std::abs(pts[i].x - through(p, k, pts[i].t)) < tolerance ? pts[i].w : 0.0;
      score += cand[i];
    }
    if (score > best) best = score, w = cand;
  };
  for (int a = 0; a < m; ++a)
    for (int b = a + 1; b < m; ++b) {
      p[0] = &pts[idx[a]], p[1] = &pts[idx[b]];
      if (k == 2) {
        consider();
        continue;
      }
      for (int c = b + 1; c < m; ++c) {
        p[2] = &pts[idx[c]];
        consider();
      }
    }
  return w;
}

double median(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

double LanePolynomial::operator()(double y) const { return evaluate(coefficients, (y - y_mid) / y_half); }

LanePolynomial robust_polynomial(const std::vector<double>& xs, const std::vector<int>& ys,
                                 const std::vector<double>& weights, const LaneFitOptions& o) {
  LanePolynomial poly;
  if (o.degree <= 0 || xs.size() != ys.size() || weights.size() != xs.size()) return poly;
  int first = -1, last = -1, n = 0;
  for (size_t k = 0; k < xs.size(); ++k)
    if (xs[k] >= 0) {
      if (first < 0) first = static_cast<int>(k);
      last = static_cast<int>(k);
      ++n;
    }
  if (n < std::max(2, o.min_points)) return poly;
  poly.y_mid = 0.5 * (ys[first] + ys[last]);
  poly.y_half = std::max(1.0, 0.5 * std::abs(ys[last] - ys[first]));
  std::vector<Point> pts;
  for (size_t k = 0; k < xs.size(); ++k)
    if (xs[k] >= 0) pts.push_back({(ys[k] - poly.y_mid) / poly.y_half, xs[k], std::max(1e-3, weights[k])});
  const int degree = std::clamp(static_cast<int>(pts.size()) - 2, 1, o.degree);

  std::vector<double> w = consensus_weights(pts, degree, o.consensus_px);
  poly.coefficients = weighted_fit(pts, w, degree);
  std::vector<double> residual(pts.size());
  for (int it = 0; it < o.iterations; ++it) {
    for (size_t i = 0; i < pts.size(); ++i) residual[i] = std::abs(pts[i].x - evaluate(poly.coefficients, pts[i].t));
    const double scale = std::max(o.min_scale_px, 1.4826 * median(residual));
    const double c = o.tukey_c * scale;
    int inliers = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
      const double u = residual[i] / c;
      w[i] = u < 1 ? pts[i].w * (1 - u * u) * (1 - u * u) : 0.0;
      inliers += w[i] > 0;
    }
    if (inliers < degree + 1) break;  // keep the previous fit rather than an underdetermined one
    poly.coefficients = weighted_fit(pts, w, degree);
  }
  return poly;
}

std::vector<double> fit_lane(const std::vector<double>& xs, const std::vector<int>& ys,
                             const std::vector<double>& weights, const LaneFitOptions& o) {
  const LanePolynomial poly = robust_polynomial(xs, ys, weights, o);
  if (poly.coefficients.empty()) return xs;
  int first = -1, last = -1;
  for (size_t k = 0; k < xs.size(); ++k)
    if (xs[k] >= 0) {
      if (first < 0) first = static_cast<int>(k);
      last = static_cast<int>(k);
    }
  const int n = static_cast<int>(xs.size());
  first = std::max(0, first - std::max(0, o.extend_rows));
  last = std::min(n - 1, last + std::max(0, o.extend_rows));
  std::vector<double> out(xs.size(), static_cast<double>(data::kNoPoint));
  int prev = -1;  // the last detected row at or before k
  for (int k = first; k <= last; ++k) {
    if (xs[k] >= 0) prev = k;
    if (xs[k] < 0 && o.max_gap_rows >= 0 && prev >= 0) {
      int next = k;  // the next detected row, if any (rows past the lane's end are extend_rows)
      while (next < n && xs[next] < 0) ++next;
      if (next < n && next - prev - 1 > o.max_gap_rows) {
        k = next - 1;  // leave the whole gap empty
        continue;
      }
    }
    const double x = poly(ys[k]);
    if (x >= 0 && x < o.frame_width) out[k] = x;
  }
  return out;
}

}  // namespace lane::eval
