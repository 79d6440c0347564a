#!/usr/bin/env python3
"""Eager PyTorch reference of the SCNN training step (issue 12): the layers of
src/train/model/scnn.cpp (VGG16-BN with pool4/pool5 removed and conv5 dilated by 2, fc6 3x3
dilation 4 to 1024, fc7 1x1 to 128, the D-U-R-L message passing with 1x9 / 9x1 kernels slice by
slice, Dropout2d(0.1), 1x1 classifier, bilinear x8 upsampling, the existence branch), the same
loss (weighted cross-entropy, background 0.4, + 0.1 x BCE of the existence), SGD with momentum,
timed the way bench_train_step times the C++ step: images/s after two warm-up steps.

    python3 bench/train_step/eager_scnn.py --batch 24[,48,96] --height 288 --width 512 --steps 20 \
        --precision fp32,bf16 [--device cuda] [--compile] [--json FILE] [--cudnn-benchmark on|off]

One row per batch per precision, as bench_train_step --batch with a list; a batch that runs out
of CUDA memory gets a row saying so (its "error") and the others go on. --compile times the same
model under torch.compile (the first two steps, which compile, are reported apart as warm-up
seconds); --json appends one JSON object per row to FILE as it is measured (scripts/gpu-check
reads them)."""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VGG = [(64, 1, False), (64, 1, True), (128, 1, False), (128, 1, True), (256, 1, False), (256, 1, False),
       (256, 1, True), (512, 1, False), (512, 1, False), (512, 1, False), (512, 2, False), (512, 2, False),
       (512, 2, False)]


class MessagePassing(nn.Module):
    """D, U, R, L passes; slice s += relu(conv(slice s-1)), the first slice of U and L updated (ORIG)."""

    def __init__(self, channels=128, kernel=9):
        super().__init__()
        row = dict(kernel_size=(1, kernel), padding=(0, kernel // 2), bias=False)
        col = dict(kernel_size=(kernel, 1), padding=(kernel // 2, 0), bias=False)
        self.d, self.u = nn.Conv2d(channels, channels, **row), nn.Conv2d(channels, channels, **row)
        self.r, self.l = nn.Conv2d(channels, channels, **col), nn.Conv2d(channels, channels, **col)

    @staticmethod
    def _pass(x, conv, dim, reverse):
        slices = list(x.unbind(dim))
        order = range(len(slices) - 2, -1, -1) if reverse else range(1, len(slices))
        for s in order:
            prev = slices[s + 1] if reverse else slices[s - 1]
            slices[s] = slices[s] + F.relu(conv(prev.unsqueeze(dim)).squeeze(dim))
        return torch.stack(slices, dim)

    def forward(self, x):
        x = self._pass(x, self.d, 2, False)
        x = self._pass(x, self.u, 2, True)
        x = self._pass(x, self.r, 3, False)
        return self._pass(x, self.l, 3, True)


class Scnn(nn.Module):
    def __init__(self, height, width, classes=7):
        super().__init__()
        layers, c = [], 3
        for out, dil, pool in VGG:
            layers += [nn.Conv2d(c, out, 3, padding=dil, dilation=dil), nn.BatchNorm2d(out), nn.ReLU(inplace=True)]
            if pool:
                layers.append(nn.MaxPool2d(2, 2))
            c = out
        layers += [nn.Conv2d(c, 1024, 3, padding=4, dilation=4, bias=False), nn.BatchNorm2d(1024), nn.ReLU(True),
                   nn.Conv2d(1024, 128, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU(True)]
        self.backbone = nn.Sequential(*layers)
        self.mp = MessagePassing()
        self.head = nn.Sequential(nn.Dropout2d(0.1), nn.Conv2d(128, classes, 1))
        self.exist = nn.Sequential(nn.Linear(classes * (height // 16) * (width // 16), 128), nn.ReLU(True),
                                   nn.Linear(128, classes - 1))
        self.size = (height, width)

    def forward(self, x):
        logits = self.head(self.mp(self.backbone(x)))
        seg = F.interpolate(logits, size=self.size, mode="bilinear", align_corners=True)
        e = F.avg_pool2d(torch.softmax(logits, 1), 2, 2)
        return seg, self.exist(e.flatten(1))


def time_step(args, precision, batch):
    torch.manual_seed(0)
    dev = torch.device(args.device)
    net = Scnn(args.height, args.width).to(dev).train()
    model = torch.compile(net) if args.compile else net
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    weights = torch.tensor([0.4] + [1.0] * 6, device=dev)
    images = torch.randn(batch, 3, args.height, args.width, device=dev)
    seg = torch.randint(0, 7, (batch, args.height, args.width), device=dev)
    exist = torch.randint(0, 2, (batch, 6), device=dev).float()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    # The C++ trainer's float32 math (train/device/device_select.h, float32_math): fp32 is strict
    # (no TF32), tf32 allows it everywhere, bf16/fp16 keep PyTorch's defaults.
    torch.backends.cudnn.allow_tf32 = precision != "fp32"
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    scaler = torch.amp.GradScaler(args.device, enabled=precision == "fp16")

    def step():
        with torch.autocast(dev.type, dtype=dtype or torch.float32, enabled=dtype is not None):
            out_seg, out_exist = model(images)
        loss = F.cross_entropy(out_seg.float(), seg, weight=weights) + \
            0.1 * F.binary_cross_entropy_with_logits(out_exist.float(), exist)
        opt.zero_grad(set_to_none=False)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    t0 = time.perf_counter()
    step(), step()
    sync()
    warmup = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = step()
    sync()
    return (time.perf_counter() - t0) / args.steps, loss.item(), warmup


def batch_list(text):
    """--batch: "24" or "24,48,96", each a positive integer."""
    try:
        batches = [int(b) for b in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a batch or a comma list of batches: {text!r}")
    if not batches or min(batches) < 1:
        raise argparse.ArgumentTypeError(f"batches are positive: {text!r}")
    return batches


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--batch", type=batch_list, default=[24], help="a batch or a comma list of batches")
    p.add_argument("--height", type=int, default=288)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--precision", default="fp32,bf16")
    p.add_argument("--compile", action="store_true", help="the model under torch.compile instead of eager")
    p.add_argument("--json", help="append one JSON object per measured row to this file")
    p.add_argument("--cudnn-benchmark", choices=["on", "off"], default="on",
                   help="cuDNN autotuning (CUDA), as bench_train_step --cudnn-benchmark")
    args = p.parse_args()
    torch.backends.cudnn.benchmark = args.cudnn_benchmark == "on"
    cudnn = (f"cuDNN benchmark {'on' if torch.backends.cudnn.benchmark else 'off'}"
             if torch.device(args.device).type == "cuda" else "cuDNN benchmark n/a (cpu)")
    mode = "torch.compile" if args.compile else "eager"
    print(f"{mode} PyTorch {torch.__version__} SCNN train step on {args.device}, {args.height}x{args.width}, "
          f"{args.steps} timed step(s) after 2 warm-up, {cudnn}", flush=True)
    print(f"{'prec':6} {'batch':>6} {'s/step':>10} {'img/s':>10} {'loss@end':>10} {'warm-up s':>10}", flush=True)
    for batch in args.batch:
        for precision in args.precision.split(","):
            row = {"kind": mode, "input": f"{args.height}x{args.width}", "precision": precision, "batch": batch}
            try:
                s, loss, warmup = time_step(args, precision, batch)
            except torch.cuda.OutOfMemoryError:
                s = None
            if s is None:
                torch.cuda.empty_cache()  # here, not in the except: its traceback held the step's tensors
                print(f"{precision:6} {batch:6d} out of memory", flush=True)
                row["error"] = "out of memory"
            else:
                print(f"{precision:6} {batch:6d} {s:10.4f} {batch / s:10.2f} {loss:10.5f} {warmup:10.2f}", flush=True)
                row.update(s_per_step=s, img_per_s=batch / s, loss=loss, warmup_s=warmup)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(dict(row, torch=torch.__version__)) + "\n")


if __name__ == "__main__":
    main()
