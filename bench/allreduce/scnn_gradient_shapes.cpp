#include "scnn_gradient_shapes.h"

namespace lane::bench {

std::vector<size_t> scnn_gradient_sizes() {
  std::vector<size_t> sizes;
  // VGG16 features: 13 3x3 convs with bias, each followed by BatchNorm (gamma, beta).
  const size_t channels[][2] = {{3, 64},    {64, 64},   {64, 128},  {128, 128}, {128, 256},
                                {256, 256}, {256, 256}, {256, 512}, {512, 512}, {512, 512},
                                {512, 512}, {512, 512}, {512, 512}};
  for (auto& c : channels) {
    sizes.push_back(c[0] * c[1] * 9);
    sizes.push_back(c[1]);
    sizes.push_back(c[1]);
    sizes.push_back(c[1]);
  }
  sizes.push_back(512 * 1024 * 9);  // fc6: dilated 3x3, no bias
  sizes.push_back(1024);            // its BN
  sizes.push_back(1024);
  sizes.push_back(1024 * 128);      // fc7: 1x1, no bias
  sizes.push_back(128);
  sizes.push_back(128);
  for (int d = 0; d < 4; ++d) sizes.push_back(128 * 128 * 9);  // SCNN D, U, R, L (no bias)
  const size_t classes = 7, features = 7 * 23 * 40;
  sizes.push_back(128 * classes);  // fc8 1x1 with bias
  sizes.push_back(classes);
  sizes.push_back(features * 128);  // existence FC1
  sizes.push_back(128);
  sizes.push_back(128 * (classes - 1));  // existence FC2
  sizes.push_back(classes - 1);
  return sizes;
}

}  // namespace lane::bench
