#pragma once
// The gradient tensors of SCNN (VGG16 backbone, 368x640 input, 7 classes; 20,991,053 floats),
// in parameter order, as element counts. Lets the allreduce benchmark reduce the real
// gradient set without linking libtorch.
#include <cstddef>
#include <vector>

namespace lane::bench {
std::vector<size_t> scnn_gradient_sizes();
}
