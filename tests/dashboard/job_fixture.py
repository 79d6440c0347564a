"""A job that writes what the job page shows (standard library only), shared by the HTTP test of
the job page API (test_job_api.py) and the browser test of the page.

`submit_curves_job(run, scratch, name)` submits, through `run(*lanectl_args)`, a local job of the
scnn-train image (OUTPUT_DIR=/mnt/runs by default) on a new claim mounted at /mnt that writes
metrics.jsonl (train and val records as scnn-train writes them), a PNG overlay and a symbolic
link out of the volume, prints 60 lines and then scnn-train's progress lines (the last: step
40/400, epoch 1/2, ETA 00:01:00) and a log line per second, appends more records
after a few seconds (so that a page can see the curves and the log grow) and then runs on. A
secret env value is passed to check that it never reaches a page.
"""
import os
import struct
import zlib

SECRET = "s3cr3t-job-page-value"


# Records carry the wall-clock "time" (Unix seconds) as scnn-train writes it: a value, not a curve.
T0 = 1795000000.0


def train_record(step):
    loss = 1.6 / (1 + step / 40) + 0.05
    return ('{"kind":"train","step":%d,"epoch":%d,"loss":%.5f,"seg_loss":%.5f,"exist_loss":%.5f,'
            '"lr":%.6f,"images_per_s":%.2f,"time":%.3f}' % (step, step // 100, loss, loss * 0.8, loss * 0.2,
                                                  0.01 * (1 - step / 1000), 40 + (step % 7), T0 + step))


def val_record(step):
    acc = 0.6 + 0.3 * step / (step + 100)
    return ('{"kind":"val","step":%d,"epoch":%d,"accuracy":%.4f,"fp":%.4f,"fn":%.4f,"frames":64,"time":%.3f}'
            % (step, step // 100, acc, (1 - acc) / 2, (1 - acc) / 3, T0 + step))


def metrics_lines(first, last, every=10):
    lines = []
    for step in range(first, last + 1, every):
        lines.append(train_record(step))
        if step % 50 == 0:
            lines.append(val_record(step))
    return lines


# A real scnn-train run as the demo's jobs, tiny: a synthetic data set in /tmp/d and two training
# steps (the trainer writes OUTPUT_DIR=/mnt/runs: metrics.jsonl, checkpoint_latest.pt); a shell
# script's first part (the tests append predict, eval...).
TINY_TRAINING = ("set -e; scnn-train synth --out /tmp/d --frames 8 --val-fraction 0.25 --threads 1; "
                 "scnn-train train --data-dir /tmp/d --train-labels label_data_train.json "
                 "--val-labels label_data_val.json --batch-size 2 --epochs 1 --input-height 64 --input-width 96 "
                 "--width-mult 0.25 --max-steps 2 --log-every 1 --threads 1; ")



def submit_real_job(run, scratch, script, name="evaluate"):
    """Submits `script` (TINY_TRAINING + more) as a job of the scnn-train image on a new claim at
    /mnt, with the directory `scratch` writable at /out; returns the submit's CompletedProcess."""
    os.chmod(scratch, 0o777)  # the job may run as its project's own user
    return run("submit", name, "-i", "scnn-train", "--pvc", ":1Gi:/mnt", "-v", scratch + ":/out",
               "--command", "--", "sh", "-c", script)


FIRST_STEPS = (10, 200)   # written at start
MORE_STEPS = (210, 300)   # appended a few seconds later


def png(width=64, height=36):
    """A small real PNG: a dark frame with two coloured lane-like stripes."""
    rows = b""
    for y in range(height):
        row = b"\x00"
        for x in range(width):
            if abs(x - (20 - y // 3)) < 2:
                row += b"\x40\xe0\x40"
            elif abs(x - (44 + y // 3)) < 2:
                row += b"\xe0\x40\xe0"
            else:
                row += b"\x20\x24\x30"
        rows += row

    def chunk(kind, data):
        return struct.pack("!I", len(data)) + kind + data + struct.pack("!I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack("!IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def printf_octal(data):
    return "".join("\\%03o" % b for b in data)


def submit_curves_job(run, scratch, name="curves"):
    """Writes the job's script into the directory `scratch` (outside LANECTL_HOME; mounted
    read-only at /fixture) and submits the job with image scnn-train, whose default OUTPUT_DIR
    (/mnt/runs, images/scnn-train/image.json) is where it writes."""
    first = "\\n".join(metrics_lines(*FIRST_STEPS)) + "\\n"
    more = "\\n".join(metrics_lines(*MORE_STEPS)) + "\\n"
    script = ("set -e\nmkdir -p /mnt/runs/overlays\n"
              f"printf '{first}' > /mnt/runs/metrics.jsonl\n"
              f"printf '{printf_octal(png())}' > /mnt/runs/overlays/frame_0001.png\n"
              "ln -s /etc/passwd /mnt/runs/overlays/link.png\n"
              "seq -f 'warm-up line %g' 1 60\n"
              # scnn-train's progress lines (the page shows the last one's step, epoch and ETA)
              "i=0\nwhile [ $i -lt 4 ]; do i=$((i+1)); echo \"epoch 1/2 step $((i*10))/400 loss 0.5000 "
              "(seg 0.4000 exist 0.1000) lr 0.01000 40.00 img/s ETA 00:0$((5-i)):00\"; sleep 1; done\n"
              f"printf '{more}' >> /mnt/runs/metrics.jsonl\n"
              "echo appended-more-metrics\n"
              "while true; do i=$((i+1)); echo \"tick $i\"; sleep 1; done\n")
    os.chmod(scratch, 0o755)  # the job may run as its project's own user
    with open(os.path.join(scratch, "write-metrics.sh"), "w") as f:
        f.write(script)
    return run("submit", name, "-i", "scnn-train", "--pvc", ":1Gi:/mnt", "-v", scratch + ":/fixture:ro",
               "-e", "API_TOKEN=" + SECRET, "--command", "--", "sh", "-c", "sh /fixture/write-metrics.sh")
