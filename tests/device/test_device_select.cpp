// Which device and precision a rank trains with, for every combination of request, build and
// visible GPUs: no GPU needed, the environment is described, not probed.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.h"
#include "train/device/device_select.h"

using namespace lane;
using namespace lane::train;

namespace {

DeviceEnvironment gpus(int visible, int local_rank = 0, int local_size = 1) {
  DeviceEnvironment e;
  e.build_has_cuda = true;
  e.visible_gpus = visible;
  e.local_rank = local_rank;
  e.local_size = local_size;
  return e;
}

// The UsageError's message (REQUIREs that one is thrown).
std::string usage_error(const std::string& request, const DeviceEnvironment& env) {
  try {
    resolve_device(request, "--device", env);
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("no UsageError for '" << request << "'");
  return "";
}

}  // namespace

TEST_CASE("auto is the GPU of this local rank with a CUDA build and a visible GPU, else the CPU", "[device][fast]") {
  CHECK(resolve_device("auto", "--device", DeviceEnvironment{}).describe() == "cpu");
  DeviceEnvironment cpu_build = gpus(2);
  cpu_build.build_has_cuda = false;  // GPUs present, but this binary cannot use them
  CHECK(resolve_device("auto", "--device", cpu_build).describe() == "cpu");
  CHECK(resolve_device("auto", "--device", gpus(0)).describe() == "cpu");
  CHECK(resolve_device("auto", "--device", gpus(1)).describe() == "cuda:0");
  CHECK(resolve_device("", "--device", gpus(1)).describe() == "cuda:0");
  CHECK(resolve_device("cpu", "--device", gpus(4)).describe() == "cpu");
}

TEST_CASE("cuda takes local rank modulo the visible devices", "[device][fast]") {
  CHECK(resolve_device("cuda", "--device", gpus(4, 0, 4)).describe() == "cuda:0");
  CHECK(resolve_device("cuda", "--device", gpus(4, 3, 4)).describe() == "cuda:3");
  CHECK(resolve_device("cuda", "--device", gpus(4, 1, 2)).describe() == "cuda:1");
  // CUDA_VISIBLE_DEVICES=5 (the device plugin's choice) shows one device: ordinal 0.
  DeviceEnvironment plugin = gpus(1);
  plugin.cuda_visible_devices = "5";
  CHECK(resolve_device("cuda", "--device", plugin).describe() == "cuda:0");
  // Sharing allowed: ranks wrap around the visible GPUs.
  DeviceEnvironment shared = gpus(2, 3, 4);
  shared.allow_gpu_sharing = true;
  CHECK(resolve_device("cuda", "--device", shared).describe() == "cuda:1");
  CHECK(resolve_device("auto", "--device", shared).describe() == "cuda:1");
}

TEST_CASE("cuda:N pins a device within the visible ones", "[device][fast]") {
  CHECK(resolve_device("cuda:1", "--device", gpus(2)).describe() == "cuda:1");
  CHECK(resolve_device("cuda:0", "--device", gpus(1)).index == 0);
  DeviceEnvironment plugin = gpus(2);
  plugin.cuda_visible_devices = "2,3";
  const auto msg = usage_error("cuda:2", plugin);
  CHECK_THAT(msg, Catch::Contains("only 2 GPU(s)") && Catch::Contains("CUDA_VISIBLE_DEVICES='2,3'"));
  CHECK_THAT(usage_error("cuda:0", gpus(2, 0, 2)), Catch::Contains("use --device cuda"));
}

TEST_CASE("CUDA on a CPU-only build names the fix", "[device][fast]") {
  DeviceEnvironment cpu_build;
  for (const std::string r : {"cuda", "cuda:0"}) {
    const auto msg = usage_error(r, cpu_build);
    CHECK_THAT(msg, Catch::Contains("--device") && Catch::Contains("CPU-only libtorch") &&
                        Catch::Contains("scripts/build-cuda") && Catch::Contains("--device cpu"));
  }
}

TEST_CASE("no visible GPU, more ranks than GPUs, and malformed values are usage errors", "[device][fast]") {
  DeviceEnvironment hidden = gpus(0);
  hidden.cuda_visible_devices = "";
  CHECK_THAT(usage_error("cuda", hidden), Catch::Contains("no GPU is visible") &&
                                              Catch::Contains("CUDA_VISIBLE_DEVICES=''"));
  const auto crowded = usage_error("cuda", gpus(2, 0, 3));
  CHECK_THAT(crowded, Catch::Contains("3 ranks on this node but 2 visible GPU(s)") &&
                          Catch::Contains("LANE_ALLOW_GPU_SHARING=1") && Catch::Contains("--device cpu"));
  CHECK_THAT(usage_error("auto", gpus(1, 0, 2)), Catch::Contains("2 ranks on this node"));
  for (const std::string bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:+1", "CUDA", "cuda:1x"})
    CHECK_THAT(usage_error(bad, gpus(2)), Catch::Contains("is not a device"));
  try {
    resolve_device("tpu", "environment variable DEVICE", gpus(1));
    FAIL("accepted tpu");
  } catch (const UsageError& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("environment variable DEVICE"));
  }
}

TEST_CASE("precision defaults: bf16 where the device has it, else fp16 on GPUs and fp32 on CPUs", "[device][fast]") {
  const DeviceChoice cpu, gpu{DeviceKind::kCuda, 0};
  CHECK(resolve_precision("", "--precision", gpu, true) == Precision::kBf16);
  CHECK(resolve_precision("", "--precision", gpu, false) == Precision::kFp16);
  CHECK(resolve_precision("", "--precision", cpu, true) == Precision::kBf16);
  CHECK(resolve_precision("", "--precision", cpu, false) == Precision::kFp32);
  CHECK(resolve_precision("fp32", "--precision", gpu, true) == Precision::kFp32);
  CHECK(resolve_precision("bf16", "--precision", cpu, false) == Precision::kBf16);
  CHECK(resolve_precision("fp16", "--precision", gpu, true) == Precision::kFp16);
  CHECK(std::string(precision_name(Precision::kBf16)) == "bf16");
}

TEST_CASE("impossible precisions are usage errors naming the fix", "[device][fast]") {
  const DeviceChoice cpu, gpu{DeviceKind::kCuda, 0};
  auto error = [](const std::string& r, const DeviceChoice& d, bool bf16) -> std::string {
    try {
      resolve_precision(r, "--precision", d, bf16);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK_THAT(error("fp16", cpu, false), Catch::Contains("fp16 needs a GPU") && Catch::Contains("bf16 or fp32"));
  CHECK_THAT(error("bf16", gpu, false), Catch::Contains("no bf16 support") && Catch::Contains("use fp16"));
  CHECK_THAT(error("half", gpu, true), Catch::Contains("not a precision"));
}

TEST_CASE("fp32 on a GPU is strict float32, tf32 is asked for by name", "[device][fast]") {
  const DeviceChoice cpu, gpu{DeviceKind::kCuda, 0};
  // libtorch lets cuDNN convolutions run in TF32 unless told otherwise: "fp32" must turn it off.
  const MathMode strict = float32_math(gpu, Precision::kFp32);
  CHECK_FALSE(strict.allow_tf32_cudnn);
  CHECK_FALSE(strict.allow_tf32_cublas);
  CHECK_THAT(strict.describe(), Catch::Contains("strict"));
  const MathMode tf32 = float32_math(gpu, Precision::kTf32);
  CHECK(tf32.allow_tf32_cudnn);
  CHECK(tf32.allow_tf32_cublas);
  CHECK_THAT(tf32.describe(), Catch::Contains("TF32"));
  CHECK(resolve_precision("tf32", "--precision", gpu, false) == Precision::kTf32);
  CHECK(std::string(precision_name(Precision::kTf32)) == "tf32");
  // The float32 remainder of mixed precision keeps libtorch's defaults (TF32 convolutions only).
  CHECK(float32_math(gpu, Precision::kBf16).allow_tf32_cudnn);
  CHECK_FALSE(float32_math(gpu, Precision::kBf16).allow_tf32_cublas);
  // A CPU has no TF32: nothing to allow.
  CHECK_FALSE(float32_math(cpu, Precision::kFp32).allow_tf32_cudnn);
  CHECK_FALSE(float32_math(cpu, Precision::kBf16).allow_tf32_cublas);
  try {
    resolve_precision("tf32", "--precision", cpu, true);
    FAIL("tf32 accepted on a CPU");
  } catch (const UsageError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("tf32 needs a GPU"));
  }
}

TEST_CASE("native bf16 is read from the cpuinfo flags lines", "[device][fast]") {
  CHECK(cpu_flags_have_bf16("processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16 vaes\n"));
  CHECK(cpu_flags_have_bf16("flags\t\t: fpu amx_tile amx_bf16"));
  CHECK_FALSE(cpu_flags_have_bf16("flags\t\t: fpu sse2 avx512f avx512_vnni\n"));
  CHECK_FALSE(cpu_flags_have_bf16("model name\t: avx512_bf16 lookalike\nflags\t\t: fpu\n"));
  CHECK_FALSE(cpu_flags_have_bf16(""));
}

TEST_CASE("oneDNN before 3.0 is capped at AVX512_CORE_BF16 on a CPU with AMX, unless the user chose", "[device][fast]") {
  CHECK(cpu_flags_have("flags\t\t: fpu amx_tile amx_bf16 amx_int8\n", "amx_bf16"));
  CHECK_FALSE(cpu_flags_have("flags\t\t: fpu avx512_bf16\n", "amx_bf16"));
  CHECK_FALSE(cpu_flags_have("flags\t\t: fpu amx_bf16x\n", "amx_bf16"));
  CHECK(onednn_isa_cap(2, true, false) == std::optional<std::string>("AVX512_CORE_BF16"));
  CHECK_FALSE(onednn_isa_cap(3, true, false));  // oneDNN 3.x: its AMX kernels are left alone
  CHECK_FALSE(onednn_isa_cap(2, false, false));  // no AMX: nothing to cap
  CHECK_FALSE(onednn_isa_cap(2, true, true));    // ONEDNN_MAX_CPU_ISA or DNNL_MAX_CPU_ISA set by hand
  CHECK_FALSE(onednn_isa_cap(0, true, false));   // the oneDNN version is not known
  // oneDNN reads an empty ONEDNN_MAX_CPU_ISA as unset: so does the cap.
  // Training checks the AMX kernels where oneDNN is capped and bf16 on the CPU is possible.
  CHECK(onednn_bf16_check_wanted(true, "", "auto"));
  CHECK(onednn_bf16_check_wanted(true, "bf16", "cpu"));
  CHECK(onednn_bf16_check_wanted(true, "", ""));
  CHECK_FALSE(onednn_bf16_check_wanted(false, "", "auto"));  // nothing capped: nothing to check
  CHECK_FALSE(onednn_bf16_check_wanted(true, "fp32", "auto"));  // fp32 runs no AMX kernel
  CHECK_FALSE(onednn_bf16_check_wanted(true, "", "cuda"));
  CHECK_FALSE(onednn_bf16_check_wanted(true, "bf16", "cuda:1"));
  // The CPU's default is bf16 only where it has native bf16 and its kernels are not capped.
  CHECK(cpu_bf16_by_default(true, OnednnBf16::kNotCapped));
  CHECK(cpu_bf16_by_default(true, OnednnBf16::kAmx));
  CHECK_FALSE(cpu_bf16_by_default(true, OnednnBf16::kCapped));
  CHECK_FALSE(cpu_bf16_by_default(false, OnednnBf16::kNotCapped));
  const DeviceChoice cpu;
  CHECK(resolve_precision("", "--precision", cpu, cpu_bf16_by_default(true, OnednnBf16::kCapped)) == Precision::kFp32);
  CHECK(resolve_precision("bf16", "--precision", cpu, cpu_bf16_by_default(true, OnednnBf16::kCapped)) ==
        Precision::kBf16);
  CHECK_FALSE(onednn_isa_set_by_user(nullptr, nullptr));
  CHECK_FALSE(onednn_isa_set_by_user("", nullptr));
  CHECK_FALSE(onednn_isa_set_by_user("", ""));
  CHECK(onednn_isa_set_by_user("AVX2", nullptr));
  CHECK(onednn_isa_set_by_user("", "AVX512_CORE"));
  CHECK(onednn_isa_set_by_user(nullptr, "AVX512_CORE"));
}
