// The one source of lane_torch_pch, the target that compiles the precompiled <torch/torch.h>
// every libtorch target reuses (cmake/LaneTorchPch.cmake).
