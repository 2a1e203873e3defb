"""Byte ranges and init sections against a loopback origin that answers Range: a
resumed range asks from its offset plus what is stored up to its last byte, and a whole
download of a single-file fMP4 stream stores each range as a file of its own and a
package whose playlists name those files."""

import http.server
import io
import json
import os
import re
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hls  # noqa: E402
import transport  # noqa: E402
from download import Download, Refused  # noqa: E402
from engine import Engine  # noqa: E402
from protocol import DOWNLOADED, DOWNLOADING, Wire  # noqa: E402
from store import Store  # noqa: E402

FILE = bytes((i * 7 + i // 256) % 256 for i in range(6000))  # v0/all.mp4: init 0-599, then three segments
AUDIO = {"a/init.mp4": b"audio-init" * 30, "a/seg0.m4s": b"audio-0" * 200, "a/seg1.m4s": b"audio-1" * 200}
ORIGIN = {
    "/s/master.m3u8": b"""#EXTM3U
#EXT-X-VERSION:7
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="a/index.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,CODECS="avc1.42c00c,mp4a.40.2",AUDIO="aud"
v0/index.m3u8
#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=40000,RESOLUTION=320x180,URI="v0/iframes.m3u8"
""",
    "/s/v0/index.m3u8": b"""#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:2
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-MAP:URI="all.mp4",BYTERANGE="600@0"
#EXTINF:2.0,
#EXT-X-BYTERANGE:1800@600
all.mp4
#EXTINF:2.0,
#EXT-X-BYTERANGE:2000
all.mp4
#EXTINF:2.0,
#EXT-X-BYTERANGE:1600
all.mp4
#EXT-X-ENDLIST
""",
    "/s/v0/all.mp4": FILE,
    "/s/a/index.m3u8": b"""#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:2
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-MAP:URI="init.mp4"
#EXTINF:2.0,
seg0.m4s
#EXTINF:2.0,
seg1.m4s
#EXT-X-ENDLIST
""",
    **{"/s/" + name: data for name, data in AUDIO.items()},
}


class RangeOrigin(http.server.BaseHTTPRequestHandler):
    """Serves ORIGIN, answering a single `Range: bytes=a-b` with a 206 (or, for
    /whole/…, with the whole file and a 200: a server that ignores Range)."""
    protocol_version = "HTTP/1.1"
    requests = []  # (path, Range header or None)

    def do_GET(self):  # noqa: N802 - the stdlib's name
        RangeOrigin.requests.append((self.path, self.headers.get("Range")))
        path = self.path.replace("/whole/", "/", 1)
        body = ORIGIN.get(path)
        if body is None:
            self.send_error(404)
            return
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range") or "")
        if match and not self.path.startswith("/whole/"):
            first, last = int(match[1]), int(match[2] or len(body) - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {first}-{min(last, len(body) - 1)}/{len(body)}")
            body = body[first:last + 1]
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class ByteRangeTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeOrigin)
        cls.server.daemon_threads = True
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.origin = f"http://127.0.0.1:{cls.server.server_address[1]}"
        cls.wifi = {"kind": "wifi", "endpoint": f"127.0.0.1:{cls.server.server_address[1]}",
                    "isExpensive": False, "isConstrained": False}

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.out = io.StringIO()
        self.engine = Engine(Store(self.directory.name), Wire(self.out))
        self.engine.set_path([self.wifi])
        RangeOrigin.requests.clear()

    def tearDown(self):
        with self.engine.cond:
            for d in self.engine.downloads.values():
                d.state = "canceling"
                d.abort()
            self.engine.cond.notify_all()
        for d in self.engine.downloads.values():
            if d.thread:
                d.thread.join(timeout=10)
        self.directory.cleanup()

    def events(self, name):
        return [e for e in map(json.loads, self.out.getvalue().splitlines()) if e.get("name") == name]

    # --- one range, resumed -------------------------------------------------------

    def fetch_range(self, offset, length, have, prefix="/s"):
        """Fetches `length` bytes at `offset` of all.mp4 with `have` of them in its `.part` already."""
        d = Download("t1", {"video": {}}, DOWNLOADING, plan={"resources": [], "selections": {"video": 3}})
        url = f"{self.origin}{prefix}/v0/all.mp4"
        resource = {"url": url, "path": "/s/v0/all.mp4", "local": f"v0/all.bytes-{offset}-{offset + length - 1}.mp4",
                    "stream": "video", "index": 1, "range": [offset, length]}
        final = os.path.join(self.engine.store.package_dir("t1"), resource["local"])
        os.makedirs(os.path.dirname(final))
        with open(final + ".part", "wb") as f:
            f.write(FILE[offset:offset + have])
        attempt = transport.Attempt(self.wifi)
        self.addCleanup(attempt.drop)
        self.engine._fetch_resource(d, attempt, resource)
        return final

    def test_a_resumed_range_asks_from_its_offset_plus_what_is_stored_to_its_last_byte(self):
        final = self.fetch_range(2400, 2000, 700)
        self.assertEqual(RangeOrigin.requests, [("/s/v0/all.mp4", "bytes=3100-4399")])
        with open(final, "rb") as f:
            self.assertEqual(f.read(), FILE[2400:4400])
        self.assertFalse(os.path.exists(final + ".part"))
        [stored] = self.events("segmentStored")
        self.assertEqual((stored["path"], stored["index"], stored["bytes"]), ("/s/v0/all.mp4", 1, 2000))

    def test_a_range_not_begun_asks_from_its_offset(self):
        self.fetch_range(600, 1800, 0)
        self.assertEqual(RangeOrigin.requests, [("/s/v0/all.mp4", "bytes=600-2399")])

    def test_a_part_holding_the_whole_range_is_stored_without_a_request(self):
        final = self.fetch_range(4400, 1600, 1600)
        self.assertEqual(RangeOrigin.requests, [])
        self.assertEqual(os.path.getsize(final), 1600)

    def test_a_server_that_answers_the_whole_file_stores_nothing(self):
        with self.assertRaises(Refused):
            self.fetch_range(2400, 2000, 700, prefix="/whole/s")
        package = self.engine.store.package_dir("t1")
        self.assertFalse(os.path.exists(os.path.join(package, "v0/all.bytes-2400-4399.mp4")))
        self.assertEqual(os.path.getsize(os.path.join(package, "v0/all.bytes-2400-4399.mp4.part")), 700)

    def test_the_header_never_reaches_past_the_range(self):
        self.assertEqual(transport.range_header(600, 1800), "bytes=600-2399")
        self.assertEqual(transport.range_header(600, 1800, 1799), "bytes=2399-2399")
        with self.assertRaises(ValueError):
            transport.range_header(600, 1800, 1800)

    # --- a whole download ---------------------------------------------------------

    def download(self):
        d = self.engine.request({"video": {"id": "s", "sources": [{"url": "/s/master.m3u8",
                                                                  "type": "application/x-mpegURL"}]},
                                 "catalogURL": f"{self.origin}/videos/s"})
        self.engine.start_requested(d)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and d.state != DOWNLOADED:
            time.sleep(0.02)
        self.assertEqual(d.state, DOWNLOADED, self.out.getvalue())
        return self.engine.store.package_dir(d.token)

    def read(self, package, local):
        with open(os.path.join(package, local), "rb") as f:
            return f.read()

    def test_each_range_and_init_section_is_a_file_of_its_own_named_by_the_local_playlist(self):
        package = self.download()
        playlist = self.read(package, "v0/index.m3u8").decode()
        self.assertNotIn("BYTERANGE", playlist)
        named = [line for line in playlist.splitlines() if line and not line.startswith("#")]
        self.assertEqual(named, ["all.bytes-600-2399.mp4", "all.bytes-2400-4399.mp4", "all.bytes-4400-5999.mp4"])
        self.assertIn('#EXT-X-MAP:URI="all.bytes-0-599.mp4"', playlist)
        for local, (first, last) in (("all.bytes-0-599.mp4", (0, 599)), ("all.bytes-600-2399.mp4", (600, 2399)),
                                     ("all.bytes-2400-4399.mp4", (2400, 4399)),
                                     ("all.bytes-4400-5999.mp4", (4400, 5999))):
            self.assertEqual(self.read(package, "v0/" + local), FILE[first:last + 1], local)
        for name, data in AUDIO.items():
            self.assertEqual(self.read(package, name), data, name)
        self.assertIn('#EXT-X-MAP:URI="init.mp4"', self.read(package, "a/index.m3u8").decode())
        asked = sorted(r for p, r in RangeOrigin.requests if p == "/s/v0/all.mp4")
        self.assertEqual(asked, ["bytes=0-599", "bytes=2400-4399", "bytes=4400-5999", "bytes=600-2399"])

    def test_the_package_master_names_the_chosen_renditions_and_no_iframes(self):
        package = self.download()
        master = hls.parse_master(self.read(package, "master.m3u8").decode())
        self.assertEqual([v["uri"] for v in master["variants"]], ["v0/index.m3u8"])
        self.assertEqual([r["attrs"]["URI"] for r in master["renditions"]], ["a/index.m3u8"])
        self.assertNotIn("I-FRAME", master["text"])
        self.assertFalse(any(p.endswith("iframes.m3u8") for p, _ in RangeOrigin.requests))

    def test_init_sections_are_not_reported_as_segments(self):
        self.download()
        stored = sorted((e["stream"], e["index"], e["path"], e["bytes"]) for e in self.events("segmentStored"))
        self.assertEqual(stored, [("audio_en", 0, "/s/a/seg0.m4s", 1400), ("audio_en", 1, "/s/a/seg1.m4s", 1400),
                                  ("video", 0, "/s/v0/all.mp4", 1800), ("video", 1, "/s/v0/all.mp4", 2000),
                                  ("video", 2, "/s/v0/all.mp4", 1600)])


if __name__ == "__main__":
    unittest.main()
