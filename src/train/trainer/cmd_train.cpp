// scnn-train train: flags (or the seed workflow's environment variables) → TrainConfig → loop.
#include <memory>

#include "train/commands.h"
#include "train/trainer/train_config.h"
#include "train/trainer/trainer.h"

namespace lane::train {

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train SCNN on TuSimple (single process or under mpirun)");
  cmd->footer(
      "Environment (flags win): DATA_DIR OUTPUT_DIR BATCH_SIZE VAL_BATCH_SIZE EPOCHS NUM_WORKERS USE_WORKERS "
      "USE_VAL OMP_NUM_THREADS DEVICE PRECISION. Outputs in the output dir: metrics.jsonl, checkpoint_latest.pt, "
      "checkpoint_best.pt (with validation), training_curves.png.");
  auto f = std::make_shared<TrainFlags>();
  cmd->add_option("--data-dir", f->data_dir, "TuSimple root (clips/ + label files) [DATA_DIR]");
  cmd->add_option("--output-dir", f->output_dir, "Checkpoints, metrics, curves [OUTPUT_DIR, default ./output]");
  cmd->add_option("--batch-size", f->batch_size, "Per-rank batch size [BATCH_SIZE, default 8]");
  cmd->add_option("--val-batch-size", f->val_batch_size, "Validation batch size [VAL_BATCH_SIZE, default 8]");
  cmd->add_option("--epochs", f->epochs, "Epochs [EPOCHS, default 12]");
  cmd->add_option("--num-workers", f->num_workers, "Data loader worker threads [NUM_WORKERS, default 4]");
  cmd->add_option("--use-workers", f->use_workers, "true: decode in worker threads [USE_WORKERS, default false]");
  cmd->add_option("--use-val", f->use_val, "true: validate every epoch [USE_VAL, default false]");
  cmd->add_option("--train-labels", f->train_labels, "Comma-separated label files in the data dir "
                                                     "[label_data_0313.json,label_data_0601.json]");
  cmd->add_option("--val-labels", f->val_labels, "Comma-separated validation label files [label_data_0531.json]");
  cmd->add_option("--model", f->model, "full (VGG16 SCNN) or small (channels / 8, for CPU demos) [full]");
  cmd->add_option("--num-classes", f->num_classes, "Segmentation classes incl. background: 7 or 5 [7]");
  cmd->add_option("--input-height", f->input_height, "Network input height, multiple of 8 [368]");
  cmd->add_option("--input-width", f->input_width, "Network input width, multiple of 8 [640]");
  cmd->add_option("--width-mult", f->width_mult, "Channel multiplier overriding the --model preset");
  cmd->add_option("--scnn-edge", f->scnn_edge, "orig: U/L passes update row/column 0 (ORIG, HH); pad: skip it "
                                               "(PAD, LaneDet) [orig]");
  cmd->add_option("--crop-top", f->crop_top, "Rows cut off the 720-row frame before resizing [0]");
  cmd->add_option("--pretrained", f->pretrained, "ImageNet VGG16-BN features state dict (see docs/training.md)");
  cmd->add_option("--lr", f->lr, "Base learning rate [0.025]");
  cmd->add_option("--momentum", f->momentum, "SGD momentum [0.9]");
  cmd->add_option("--weight-decay", f->weight_decay, "Weight decay [1e-4]");
  cmd->add_flag("--nesterov", f->nesterov, "Nesterov momentum (ORIG, HH)");
  cmd->add_option("--poly-power", f->poly_power, "Poly LR decay power [0.9]");
  cmd->add_option("--background-weight", f->background_weight,
                  "Cross-entropy weight of the background class; lanes weigh 1 [0.4]");
  cmd->add_option("--exist-weight", f->exist_weight, "Weight of the lane-existence BCE in the loss [0.1]");
  cmd->add_option("--warmup-steps", f->warmup_steps, "Linear LR warm-up steps [0]");
  cmd->add_option("--max-steps", f->max_steps, "End the run (and the LR schedule) after this many steps");
  cmd->add_option("--stop-after", f->stop_after, "Stop with a checkpoint at this step, like a preempted job");
  cmd->add_flag("--no-augment", f->no_augment, "Disable the training augmentation");
  cmd->add_option("--dropout", f->dropout, "Dropout2d probability before the classifier, 0 = off [0.1]");
  cmd->add_flag("--freeze-bn", f->freeze_bn, "BatchNorm keeps its running statistics while training "
                "(with --dropout 0: N ranks x batch B = 1 rank x batch N*B)");
  cmd->add_flag("--skip-bad", f->skip_bad, "Skip unreadable frames and malformed label lines");
  cmd->add_option("--log-every", f->log_every, "Progress line every N steps [10]");
  cmd->add_option("--checkpoint-every", f->checkpoint_every, "Checkpoint every N steps [500]");
  cmd->add_option("--threads", f->threads, "Intra-op threads [OMP_NUM_THREADS, else libtorch default]");
  cmd->add_option("--seed", f->seed, "Seed for init, shuffling and augmentation [1]");
  cmd->add_option("--device", f->device, "auto, cpu, cuda (the GPU of this local rank) or cuda:N [DEVICE, auto]");
  cmd->add_option("--precision", f->precision, "fp32 (strict, no TF32), tf32 (GPU), bf16 or fp16 (GPU, loss scaling) [PRECISION; bf16 where the "
                                               "GPU or CPU has it, else fp16 on GPUs, fp32 on CPUs]");
  cmd->add_flag("--resume", f->resume, "Continue from <output-dir>/checkpoint_latest.pt");
  cmd->callback([f] { run_training(resolve_train_config(*f, process_environment())); });
}

}  // namespace lane::train
