#!/usr/bin/env python3
"""Reads the TensorBoard event files of real `scnn-train train` runs with a decoder independent
of the C++ writer: its own TFRecord reader and CRC32C (its table built bit by bit here), the message
classes protoc generated from src/train/tensorboard/tensorboard_event.proto for Debian's
python3-protobuf, and zlib for the PNG images. Checks: every record's two checksums, the file
name and its first record (file_version "brain.Event:2"), that the scalars (tag, step, value as
a float32, wall time) are exactly the numbers of metrics.jsonl, that the curves image decodes as
a PNG, that a resumed run's file starts with a SessionLog START after the checkpoint's step,
and that --no-tensorboard writes none; that `scnn-train predict` writes its first 24 overlays
(of 25 frames) as images at the checkpoint's step, and none with --no-tensorboard. Also reads the run with TensorBoard's EventAccumulator
when the tensorboard package is importable (skipped, saying so, otherwise). Exit 0: all hold."""
import argparse
import glob
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import zlib

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL " + what)


def crc_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


CRC_TABLE = crc_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    data = open(path, "rb").read()
    records, at = [], 0
    while at < len(data):
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        payload = data[at + 12:at + 12 + length]
        (payload_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        check(length_crc == masked(header), f"{path}: record at byte {at}: length checksum")
        check(len(payload) == length and payload_crc == masked(payload), f"{path}: record at byte {at}: data checksum")
        records.append(payload)
        at += 16 + length
    return records


def read_events(path, pb):
    events = []
    for payload in read_records(path):
        event = pb.Event()
        event.ParseFromString(payload)
        events.append(event)
    return events


def png_decodes(png):
    """The PNG's chunks have valid CRC-32s and its IDAT stream inflates to height rows of width pixels."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    at, idat, ihdr = 8, b"", None
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, body = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        if struct.unpack(">I", png[at + 8 + length:at + 12 + length])[0] != zlib.crc32(kind + body):
            return False
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBB", body[:10])
        idat += body if kind == b"IDAT" else b""
        at += 12 + length
    width, height, depth, colour = ihdr
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    return len(zlib.decompress(idat)) == height * (1 + (width * channels * depth + 7) // 8)


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def expected_scalars(metrics_path):
    """{(tag, step): (float32 value, wall time)} of metrics.jsonl, as the writer maps records."""
    out = {}
    for line in open(metrics_path):
        record = json.loads(line)
        kind = record.pop("kind")
        step, time = record.pop("step"), record.pop("time")
        for key, value in record.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[(f"{kind}/{key}", step)] = (f32(value), time)
    return out


def logged_scalars(files, pb):
    """The scalars of the event files in name order, with TensorBoard's purge on a SessionLog START:
    points at or after its step are dropped."""
    out = {}
    for path in files:
        for event in read_events(path, pb):
            if event.HasField("session_log") and event.session_log.status == pb.SessionLog.START:
                out = {k: v for k, v in out.items() if k[1] < event.step}
            for value in event.summary.value:
                if value.WhichOneof("value") == "simple_value":
                    out[(value.tag, event.step)] = (value.simple_value, event.wall_time)
    return out


def train(args, out_dir, *extra):
    command = [args.scnn_train, "train", "--data-dir", args.data_dir, "--train-labels", "label_data_0601_first6.json",
               "--val-labels", "label_data_0601_first6.json", "--use-val", "true", "--model", "small",
               "--input-height", "64", "--input-width", "128", "--batch-size", "2", "--epochs", "2",
               "--log-every", "1", "--threads", "1", "--output-dir", out_dir, *extra]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL {' '.join(command)} exited {run.returncode}:\n{run.stdout}{run.stderr}")


def event_files(out_dir):
    return sorted(glob.glob(os.path.join(out_dir, "events.out.tfevents.*")))


def check_run(run_dir, pb):
    files = event_files(run_dir)
    check(len(files) == 1, f"{run_dir}: one event file, found {files}")
    name = os.path.basename(files[0])
    check(re.fullmatch(r"events\.out\.tfevents\.\d{10}\." + re.escape(socket.gethostname()), name) is not None,
          f"file name {name}")
    events = read_events(files[0], pb)
    check(events[0].file_version == "brain.Event:2", "the first record is file_version brain.Event:2")
    expected, logged = expected_scalars(os.path.join(run_dir, "metrics.jsonl")), logged_scalars(files, pb)
    check(len(expected) > 10 and any(tag.startswith("val/") for tag, _ in expected), "metrics.jsonl has train and val")
    check(logged == expected, f"scalars equal metrics.jsonl: only in the events {set(logged) - set(expected)}, "
          f"only in metrics.jsonl {set(expected) - set(logged)}, differing "
          f"{[(k, logged[k], expected[k]) for k in set(logged) & set(expected) if logged[k] != expected[k]][:5]}")
    images = [(e.step, v) for e in events for v in e.summary.value if v.WhichOneof("value") == "image"]
    check([v.tag for _, v in images] == ["training_curves"], "one image, training_curves")
    last_step = max(step for _, step in expected)
    step, image = images[0]
    check(step == last_step, f"the curves image is at the last step {last_step}: {step}")
    png = image.image.encoded_image_string
    check(png == open(os.path.join(run_dir, "training_curves.png"), "rb").read(), "the image is training_curves.png")
    check(png_decodes(png), "the image decodes as a PNG")
    check(struct.unpack(">II", png[16:24]) == (image.image.width, image.image.height), "image width and height")
    print(f"{files[0]}: {len(events)} records, {len(logged)} scalar points, 1 image: equal to metrics.jsonl")
    return expected


def check_resumed(args, work, pb):
    run_dir = os.path.join(work, "resumed")
    train(args, run_dir, "--stop-after", "2")
    train(args, run_dir, "--resume")
    files = event_files(run_dir)
    check(len(files) == 2, f"a resumed run adds a second event file: {files}")
    second = read_events(files[-1], pb)
    check(second[1].HasField("session_log") and second[1].session_log.status == pb.SessionLog.START
          and second[1].step == 3, "the resumed file's second record is SessionLog START at step 3")
    check(logged_scalars(files, pb) == expected_scalars(os.path.join(run_dir, "metrics.jsonl")),
          "the resumed run's scalars equal its metrics.jsonl")


def check_predict(args, run_dir, pb, trained_steps):
    frames = os.path.join(args.work_dir, "frames")
    os.makedirs(frames)
    source = os.path.join(args.data_dir, "clips", "0601", "1494453503601902751", "20.jpg")
    for i in range(25):
        shutil.copy(source, os.path.join(frames, f"{i:02d}.jpg"))
    out = os.path.join(run_dir, "predictions")
    predict = [args.scnn_train, "predict", "--checkpoint", os.path.join(run_dir, "checkpoint_latest.pt"),
               "--input", frames, "--threads", "1"]
    for extra in (["--out", out], ["--out", out + "-off", "--no-tensorboard"]):
        run = subprocess.run(predict + extra, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL {' '.join(predict + extra)} exited {run.returncode}:\n{run.stdout}{run.stderr}")
    check(not event_files(out + "-off"), "predict --no-tensorboard: no event file")
    files = event_files(out)
    check(len(files) == 1, f"predict writes one event file: {files}")
    events = read_events(files[0], pb)
    check(events[0].file_version == "brain.Event:2", "predict's first record is file_version brain.Event:2")
    images = [(e.step, v) for e in events[1:] for v in e.summary.value]
    names = [f"{i:02d}.png" for i in range(24)]
    check([v.tag for _, v in images] == ["overlays/" + n for n in names], "the first 24 overlays, in order")
    for (step, value), name in zip(images, names):
        png = value.image.encoded_image_string
        check(step == trained_steps, f"{name}: at the checkpoint's step {trained_steps}: {step}")
        check(png == open(os.path.join(out, "overlays", name), "rb").read(), f"{name}: the overlay file")
        check(png_decodes(png), f"{name}: decodes as a PNG")
    check(os.path.exists(os.path.join(out, "overlays", "24.png")), "all 25 overlays are files")
    print(f"{files[0]}: {len(images)} overlay images at step {trained_steps}")


def check_with_tensorboard(run_dir, expected):
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        print("tensorboard package not importable: its EventAccumulator check is skipped")
        return
    acc = event_accumulator.EventAccumulator(run_dir, size_guidance={event_accumulator.SCALARS: 0})
    acc.Reload()
    seen = {(tag, s.step): (s.value, s.wall_time) for tag in acc.Tags()["scalars"] for s in acc.Scalars(tag)}
    check(seen == expected, "TensorBoard's EventAccumulator reads the same scalars")
    check(acc.Tags()["images"] == ["training_curves"], "TensorBoard's EventAccumulator reads the image")


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--scnn-train", "--data-dir", "--pb-dir", "--work-dir"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.pb_dir)
    import tensorboard_event_pb2 as pb
    shutil.rmtree(args.work_dir, ignore_errors=True)
    run_dir = os.path.join(args.work_dir, "run")
    train(args, run_dir)
    expected = check_run(run_dir, pb)
    check_with_tensorboard(run_dir, expected)
    check_predict(args, run_dir, pb, max(step for _, step in expected))
    check_resumed(args, args.work_dir, pb)
    off_dir = os.path.join(args.work_dir, "off")
    train(args, off_dir, "--no-tensorboard", "--max-steps", "1")
    check(os.path.exists(os.path.join(off_dir, "metrics.jsonl")) and not event_files(off_dir),
          "--no-tensorboard: metrics.jsonl and no event file")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    shutil.rmtree(args.work_dir, ignore_errors=True)
    print("all checks passed")


if __name__ == "__main__":
    main()
