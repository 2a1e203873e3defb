#!/usr/bin/env python3
"""A small HLS downloader that speaks no protocol: the app a `bench session` judges.

It downloads one video's master playlist, its first variant's playlist and every segment
of it into `STORAGE/VIDEO/`, over the interface the network path offers (WiFi first;
cellular only with --allows-cellular), as an offline-download app does:

- a segment on its way is written to `NAME.part` and renamed once whole; started again,
  the downloader skips what is whole and resumes each `.part` with `Range: bytes=N-`;
- with no usable interface it waits, and retries a broken transfer once one is back;
- it learns the path as an app learns it from its OS: here, from the bench's
  `GET /deadzone` (`publishedPath`: what the OS was last told), polled.

Two misbehaviours, each a bug the judge must catch from what the world saw:
  --misbehave refetch                  started again, it fetches everything from the start
  --misbehave ignore-cellular-setting  uses cellular whatever --allows-cellular says

Standard library only. Exits 0 once every segment is stored.
Usage: downloader.py --session http://127.0.0.1:8474 --video clear [--allows-cellular]
"""

import argparse
import http.client
import json
import os
import sys
import time
import urllib.request


def session_state(api):
    with urllib.request.urlopen(api + "/session", timeout=10) as answer:
        return json.load(answer)


def usable_interface(api, allows_cellular):
    """The endpoint (host, port) of the interface to use now, or None."""
    with urllib.request.urlopen(api + "/deadzone", timeout=10) as answer:
        status = json.load(answer)
    offered = {entry["kind"]: entry["endpoint"] for entry in status["publishedPath"]["interfaces"]}
    for kind in ("wifi", "cellular"):
        if kind in offered and (kind == "wifi" or allows_cellular):
            host, port = offered[kind].rsplit(":", 1)
            return host, int(port)
    return None


class Downloader:
    def __init__(self, api, video, allows_cellular, misbehave):
        self.api = api
        self.video = video
        self.allows_cellular = allows_cellular or misbehave == "ignore-cellular-setting"
        self.misbehave = misbehave
        state = session_state(api)
        self.master_path = state["videos"][video]
        self.directory = os.path.join(state["storage"], video)

    def fetch(self, path, start=0):
        """The response to GET path (from byte `start`) over the interface usable now; waits for one."""
        while True:
            endpoint = usable_interface(self.api, self.allows_cellular)
            if endpoint is None:
                time.sleep(0.2)
                continue
            connection = http.client.HTTPConnection(*endpoint, timeout=15)
            headers = {"Range": "bytes=%d-" % start} if start else {}
            try:
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                if response.status in (200, 206):
                    return connection, response
                response.read()
                connection.close()
            except OSError:
                connection.close()
            time.sleep(0.2)

    def store(self, path, local):
        """Fetches `path` into `local` (through `local.part`), resuming a partial copy."""
        if os.path.exists(local) and self.misbehave != "refetch":
            return
        partial = local + ".part"
        while True:
            have = os.path.getsize(partial) if os.path.exists(partial) and self.misbehave != "refetch" else 0
            connection, response = self.fetch(path, start=have)
            mode = "ab" if have and response.status == 206 else "wb"
            try:
                with open(partial, mode) as out:
                    while True:
                        chunk = response.read1(16384)  # what has arrived, not a full 16 KB
                        if not chunk:
                            break
                        out.write(chunk)
                        out.flush()
                if response.length in (None, 0):
                    os.replace(partial, local)
                    return
            except OSError:
                pass
            finally:
                connection.close()
            time.sleep(0.2)

    def run(self):
        os.makedirs(self.directory, exist_ok=True)
        base = self.master_path.rsplit("/", 1)[0]
        master_file = os.path.join(self.directory, "master.m3u8")
        self.store(self.master_path, master_file)
        with open(master_file) as f:
            variant = next(line.strip() for line in f if line.strip() and not line.startswith("#"))
        variant_dir = os.path.join(self.directory, os.path.dirname(variant))
        os.makedirs(variant_dir, exist_ok=True)
        variant_file = os.path.join(self.directory, variant)
        self.store(base + "/" + variant, variant_file)
        variant_base = base + "/" + os.path.dirname(variant)
        with open(variant_file) as f:
            segments = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        for segment in segments:
            self.store(variant_base + "/" + segment, os.path.join(variant_dir, segment))
        print("stored %d segments of %s" % (len(segments), self.video), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--session", required=True, help="the bench session's API, e.g. http://127.0.0.1:8474")
    parser.add_argument("--video", required=True, help="a video id GET /session lists")
    parser.add_argument("--allows-cellular", action="store_true", help="the user lets this download use cellular")
    parser.add_argument("--misbehave", choices=["refetch", "ignore-cellular-setting"], help="a bug to have")
    options = parser.parse_args()
    Downloader(options.session.rstrip("/"), options.video, options.allows_cellular, options.misbehave).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
