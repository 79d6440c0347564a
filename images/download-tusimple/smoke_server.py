#!/usr/bin/env python3
"""HTTP server on 127.0.0.1 for the download-tusimple smoke test (Python standard library only).

Serves the files below ROOT with single-range support (``Range: bytes=N-`` -> 206) and logs
every request as a JSON line. ``--cut PATH:BYTES`` makes the first full GET of PATH announce
the whole length but send only BYTES bytes and close the connection: an interrupted transfer.
The chosen port is written to PORT_FILE once the server listens.

    smoke_server.py ROOT PORT_FILE LOG_FILE [--cut /datasets/1/train_set.zip:40000]
"""
import argparse
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("port_file")
    parser.add_argument("log_file")
    parser.add_argument("--cut", default="", help="PATH:BYTES, the first full GET of PATH stops after BYTES")
    args = parser.parse_args()
    cut_path, _, cut_bytes = args.cut.rpartition(":")
    pending_cut = {cut_path: int(cut_bytes)} if cut_path else {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *unused):  # the JSON log replaces the default stderr lines
            pass

        def do_GET(self):
            with lock:
                with open(args.log_file, "a") as log:
                    log.write(json.dumps({"path": self.path, "range": self.headers.get("Range")}) + "\n")
            file = os.path.realpath(os.path.join(args.root, self.path.lstrip("/")))
            if not file.startswith(os.path.realpath(args.root) + os.sep) or not os.path.isfile(file):
                self.send_error(404)
                return
            with open(file, "rb") as f:
                data = f.read()
            start = 0
            match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
            if match:
                start = int(match.group(1))
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(data) - start))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            with lock:
                limit = pending_cut.pop(self.path, None) if not match else None
            if limit is not None:
                self.wfile.write(data[:limit])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)  # the peer sees a transfer that ended early
                return
            self.wfile.write(data[start:])

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
