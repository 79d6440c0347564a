#include "train/trainer/checkpoint.h"

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string_view>

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/debris.h"
#include "common/error.h"
#include "common/error_text.h"
#include "common/sha256.h"

namespace lane::train {
namespace fs = std::filesystem;

namespace {

torch::Tensor string_tensor(const std::string& s) {
  auto t = torch::empty({static_cast<int64_t>(s.size())}, torch::kUInt8);
  std::memcpy(t.data_ptr(), s.data(), s.size());
  return t;
}

std::string tensor_string(const torch::Tensor& t) {
  auto c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.numel()));
}

nlohmann::json info_json(const CheckpointModelInfo& i) {
  return {{"num_classes", i.model.num_classes},   {"input_height", i.model.input_height},
          {"input_width", i.model.input_width},   {"width_mult", i.model.width_mult},
          {"update_first_slice", i.model.update_first_slice},
          {"scnn_kernel", i.model.scnn_kernel},   {"crop_top", i.crop_top}};
}

CheckpointModelInfo info_from_json(const nlohmann::json& j) {
  CheckpointModelInfo i;
  i.model.num_classes = j.at("num_classes");
  i.model.input_height = j.at("input_height");
  i.model.input_width = j.at("input_width");
  i.model.width_mult = j.at("width_mult");
  i.model.update_first_slice = j.at("update_first_slice");
  i.model.scnn_kernel = j.at("scnn_kernel");
  i.crop_top = j.at("crop_top");
  return i;
}

// On disk a checkpoint is "lanectl-checkpoint sha256=<hex of the payload>\n" + the libtorch
// archive (the payload). The header is checked before libtorch sees a byte: a flipped bit in
// the weights is an error naming the file, not a silently different model.
constexpr std::string_view kDigestHeader = "lanectl-checkpoint sha256=";

std::string with_digest(const std::string& payload) {
  return fmt::format("{}{}\n", kDigestHeader, sha256_hex(payload)) + payload;
}

std::string verified_payload(const fs::path& path, std::string file) {
  if (file.compare(0, kDigestHeader.size(), kDigestHeader) != 0)
    throw UsageError(fmt::format("checkpoint '{}' has no integrity digest (its first line is not '{}<hex>': written "
                                 "by an older scnn-train, or the line was removed), so a changed byte in its weights "
                                 "would go unnoticed; it is refused. Use a checkpoint saved by this version: retrain, "
                                 "or restore the run's folder from a snapshot",
                                 path.string(), kDigestHeader));
  const size_t eol = file.find('\n');
  const std::string stored = eol == std::string::npos ? "" : file.substr(kDigestHeader.size(), eol - kDigestHeader.size());
  const std::string_view payload = eol == std::string::npos ? std::string_view() : std::string_view(file).substr(eol + 1);
  if (stored.size() != 64 || sha256_hex(payload) != stored)
    throw UsageError(fmt::format("checkpoint '{}' is damaged: its content does not match the digest it was "
                                 "saved with (a truncated or corrupted file); use another checkpoint or retrain",
                                 path.string()));
  return file.substr(eol + 1);
}

void open_archive(const fs::path& path, torch::serialize::InputArchive& archive) {
  if (!fs::is_regular_file(path)) throw UsageError(fmt::format("checkpoint '{}' does not exist", path.string()));
  std::istringstream in(verified_payload(path, read_file(path)));
  try {
    archive.load_from(in, torch::Device(torch::kCPU));  // device-independent: a GPU run's tensors load on the CPU
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("checkpoint '{}' is not a scnn-train checkpoint: {}", path.string(),
                                 without_backtrace(e.what())));
  }
}

torch::Tensor read_tensor(torch::serialize::InputArchive& a, const std::string& key) {
  torch::Tensor t;
  a.read(key, t);
  return t;
}

constexpr const char* kCudaRngCount = "rng_cuda_count";
std::string cuda_rng_key(size_t i) { return fmt::format("rng_cuda_{}", i); }

// The generator of GPU i (the CUDA hooks; only called where a CUDA device exists).
at::Generator cuda_generator(size_t i) {
  return at::globalContext().defaultGenerator(torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(i)));
}

size_t visible_gpus() {
#ifdef LANE_WITH_CUDA
  return torch::cuda::is_available() ? torch::cuda::device_count() : 0;
#else
  return 0;
#endif
}

}  // namespace

std::vector<torch::Tensor> cuda_rng_states() {
  std::vector<torch::Tensor> states;
  for (size_t i = 0; i < visible_gpus(); ++i) {
    auto gen = cuda_generator(i);
    std::lock_guard<std::mutex> lock(gen.mutex());
    states.push_back(gen.get_state());
  }
  return states;
}

void restore_cuda_rng_states(const std::vector<torch::Tensor>& states, const std::string& checkpoint_name) {
  const size_t gpus = visible_gpus();
  for (size_t i = 0; i < std::min(gpus, states.size()); ++i) {
    auto gen = cuda_generator(i);
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(states[i]);
  }
  if (states.size() > gpus)
    std::cerr << fmt::format("warning: checkpoint '{}' holds the CUDA RNG states of {} GPU(s), this process sees "
                             "{}: the random streams (dropout, augmentation on the GPU) of the others do not "
                             "continue, so this resume is not bit-exact\n",
                             checkpoint_name, states.size(), gpus);
}

void write_cuda_rng_states(torch::serialize::OutputArchive& archive, const std::vector<torch::Tensor>& states) {
  archive.write(kCudaRngCount, torch::tensor({static_cast<int64_t>(states.size())}, torch::kInt64));
  for (size_t i = 0; i < states.size(); ++i) archive.write(cuda_rng_key(i), states[i]);
}

std::optional<std::vector<torch::Tensor>> read_cuda_rng_states(torch::serialize::InputArchive& archive) {
  torch::Tensor count;
  if (!archive.try_read(kCudaRngCount, count)) return std::nullopt;  // saved before they were recorded
  std::vector<torch::Tensor> states;
  for (int64_t i = 0; i < count[0].item<int64_t>(); ++i)
    states.push_back(read_tensor(archive, cuda_rng_key(static_cast<size_t>(i))));
  return states;
}

std::optional<std::vector<torch::Tensor>> read_checkpoint_cuda_rng_states(const fs::path& path) {
  return CheckpointFile(path).cuda_rng_states();
}

std::string serialize_checkpoint(model::Scnn& net, torch::optim::Optimizer& opt, const TrainingProgress& p,
                                 const CheckpointModelInfo& info, const nlohmann::json& settings) {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive model_archive, opt_archive;
  net->save(model_archive);
  opt.save(opt_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", opt_archive);
  archive.write("progress", torch::tensor({p.step, p.epoch, p.batch_in_epoch}, torch::kInt64));
  archive.write("best_accuracy", torch::tensor({p.best_accuracy}, torch::kFloat64));
  archive.write("model_info", string_tensor(info_json(info).dump()));
  if (!settings.is_null()) archive.write("settings", string_tensor(settings.dump()));
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    archive.write("rng_cpu", gen.get_state());
  }
  write_cuda_rng_states(archive, cuda_rng_states());
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void save_checkpoint(const fs::path& path, model::Scnn& net, torch::optim::Optimizer& opt, const TrainingProgress& p,
                     const CheckpointModelInfo& info, const nlohmann::json& settings) {
  remove_stale_checkpoint_temporaries(path.parent_path().empty() ? fs::path(".") : path.parent_path());
  write_file_atomic(path, with_digest(serialize_checkpoint(net, opt, p, info, settings)));
}

void remove_stale_checkpoint_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint", 0) != 0) continue;
    auto pid = pid_after(name, ".pt.tmp.");
    if (pid && !process_alive(*pid)) fs::remove(e.path(), ec);
  }
}

CheckpointFile::CheckpointFile(fs::path path) : path_(std::move(path)) { open_archive(path_, archive_); }

CheckpointModelInfo CheckpointFile::info() {
  try {
    return info_from_json(nlohmann::json::parse(tensor_string(read_tensor(archive_, "model_info"))));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("checkpoint '{}' has no readable model description: {}", path_.string(),
                                 without_backtrace(e.what())));
  }
}

nlohmann::json CheckpointFile::settings() {
  torch::Tensor text;
  if (!archive_.try_read("settings", text)) return nullptr;
  auto settings = nlohmann::json::parse(tensor_string(text), nullptr, /*allow_exceptions=*/false);
  if (settings.is_discarded())
    throw UsageError(fmt::format("checkpoint '{}' has an unreadable settings record", path_.string()));
  return settings;
}

std::optional<std::vector<torch::Tensor>> CheckpointFile::cuda_rng_states() { return read_cuda_rng_states(archive_); }

TrainingProgress CheckpointFile::load_into(model::Scnn& net, torch::optim::Optimizer* opt) {
  const CheckpointModelInfo stored = info();
  const auto& have = net->config();
  const std::string path = path_.string();
  if (stored.model.num_classes != have.num_classes || stored.model.input_height != have.input_height ||
      stored.model.input_width != have.input_width || stored.model.width_mult != have.width_mult)
    throw UsageError(fmt::format(
        "checkpoint '{}' was trained with {} classes, {}x{} input, width {}; the run asks for {} classes, "
        "{}x{}, width {} (use the same --model/--num-classes/--input-height/--input-width)",
        path, stored.model.num_classes, stored.model.input_height, stored.model.input_width,
        stored.model.width_mult, have.num_classes, have.input_height, have.input_width, have.width_mult));
  // The message passing's edge rule and kernel change what the weights compute.
  if (stored.model.update_first_slice != have.update_first_slice || stored.model.scnn_kernel != have.scnn_kernel)
    throw UsageError(fmt::format(
        "checkpoint '{}' was trained with --scnn-edge {} and a message-passing kernel of {}; the run asks for "
        "--scnn-edge {} and {} (use the checkpoint's)",
        path, stored.model.update_first_slice ? "orig" : "pad", stored.model.scnn_kernel,
        have.update_first_slice ? "orig" : "pad", have.scnn_kernel));
  torch::serialize::InputArchive model_archive;
  archive_.read("model", model_archive);
  net->load(model_archive);
  net->set_memory_format(net->memory_format());  // the model's layout, whatever the saving run's was
  TrainingProgress p;
  const auto counters = read_tensor(archive_, "progress");
  p.step = counters[0].item<int64_t>();
  p.epoch = counters[1].item<int64_t>();
  p.batch_in_epoch = counters[2].item<int64_t>();
  p.best_accuracy = read_tensor(archive_, "best_accuracy")[0].item<double>();
  if (opt != nullptr) {
    torch::serialize::InputArchive opt_archive;
    archive_.read("optimizer", opt_archive);
    opt->load(opt_archive);
    {
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(read_tensor(archive_, "rng_cpu"));
    }
    if (auto cuda = read_cuda_rng_states(archive_)) restore_cuda_rng_states(*cuda, path);
  }
  return p;
}

CheckpointModelInfo read_checkpoint_info(const fs::path& path) { return CheckpointFile(path).info(); }

nlohmann::json read_checkpoint_settings(const fs::path& path) { return CheckpointFile(path).settings(); }

TrainingProgress load_checkpoint(const fs::path& path, model::Scnn& net, torch::optim::Optimizer* opt) {
  return CheckpointFile(path).load_into(net, opt);
}

}  // namespace lane::train
