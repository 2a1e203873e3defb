"""The real-world bugs the bench replays against Deadzone's engine (its misbehaving
variants in HarnessMisbehaviorTests), checked in this engine without a conditioner: each
test fails on an engine that has the bug."""

import io
import json
import os
import socket
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine import Engine  # noqa: E402
from protocol import Wire  # noqa: E402
from store import Store  # noqa: E402
from test_store import REQUEST  # noqa: E402


class ReplayTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(10)  # a generous bound on the event awaited
        self.wifi = {"kind": "wifi", "endpoint": "127.0.0.1:%d" % self.listener.getsockname()[1],
                     "isExpensive": False, "isConstrained": False}
        # Nothing listens on port 1: a connection there is refused at once.
        self.cellular = {"kind": "cellular", "endpoint": "127.0.0.1:1", "isExpensive": True, "isConstrained": False}
        self.engine, self.out, self.accepted = None, io.StringIO(), []

    def tearDown(self):
        if self.engine:  # stop the workers before their directory goes
            with self.engine.cond:
                for d in self.engine.downloads.values():
                    d.state = "canceling"
                    d.abort()
                self.engine.cond.notify_all()
            for d in self.engine.downloads.values():
                if d.thread:
                    d.thread.join(timeout=10)
        for connection in self.accepted:
            connection.close()
        self.listener.close()
        self.directory.cleanup()

    def relaunch(self, after, interfaces, rows=(("t1", "downloading"),)):
        store = Store(self.directory.name)
        for index, (token, state) in enumerate(rows):
            store.add(token, REQUEST, state, float(index))
        self.engine = Engine(store, Wire(self.out))
        self.engine.set_path(interfaces)
        self.engine.restore(after)

    def wait_for_state(self, token, state):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with self.engine.cond:
                if self.engine.downloads[token].state == state:
                    return
            time.sleep(0.01)
        self.fail(f"{token} never reached {state}; events: {self.out.getvalue()}")

    def events(self):
        with self.engine.cond:
            return [json.loads(line) for line in self.out.getvalue().splitlines()]

    def test_wifi_coming_back_is_noticed_by_a_download_that_waits_for_it(self):
        # ExoPlayer #7453: WiFi lost, then back; the queued wifi-only download never noticed.
        self.relaunch("crash", [self.cellular])  # REQUEST does not allow cellular
        self.wait_for_state("t1", "suspended(cellularNotAllowed)")
        self.engine.set_path([self.wifi, self.cellular])
        connection, _ = self.listener.accept()  # raises socket.timeout if WiFi's return went unnoticed
        self.accepted.append(connection)
        self.assertEqual(self.engine.downloads["t1"].attempts[0].interface["kind"], "wifi")

    def test_switching_wifi_to_cellular_and_back_leaves_no_download_stuck(self):
        # androidx/media #1712: after switching between WiFi and cellular, a download
        # that needs WiFi stays stuck and never resumes.
        self.relaunch("crash", [self.wifi])
        first, _ = self.listener.accept()
        self.accepted.append(first)
        for _ in range(2):
            self.engine.set_path([self.cellular])
            self.wait_for_state("t1", "suspended(cellularNotAllowed)")
            self.engine.set_path([self.wifi, self.cellular])
            # A new connection on WiFi each time (the listener never answers, so the
            # download stays at its first request); socket.timeout if it stayed stuck.
            again, _ = self.listener.accept()
            self.accepted.append(again)

    def test_a_later_request_does_not_change_an_earlier_downloads_cellular_setting(self):
        # novoda download-manager #442: the allowed connection kept per batch.
        self.engine = Engine(Store(self.directory.name), Wire(self.out))
        earlier = self.engine.request(dict(REQUEST, allowsCellular=False))
        later = self.engine.request(dict(REQUEST, allowsCellular=True))
        self.assertEqual((earlier.request["allowsCellular"], later.request["allowsCellular"]), (False, True))
        [first, second] = sorted(Store(self.directory.name).downloads(), key=lambda row: row["requested_at"])
        self.assertEqual((first["request"]["allowsCellular"], second["request"]["allowsCellular"]), (False, True))

    def test_a_relaunch_takes_each_unfinished_download_up_once(self):
        # mux-player-swift PR #80: the same asset downloaded twice at once after a relaunch.
        self.relaunch("crash", [self.wifi], rows=(("t1", "downloading"), ("t2", "downloaded")))
        connection, _ = self.listener.accept()
        self.accepted.append(connection)
        workers = [t.name for t in threading.enumerate() if t.name.startswith("download-")]
        self.assertEqual(workers, ["download-t1"])
        self.assertEqual(sorted(self.engine.downloads), ["t1", "t2"])

    def test_a_download_in_progress_at_a_crash_is_not_reported_downloaded_after_it(self):
        # The WWDC app's #163: in-progress downloads marked complete after a relaunch.
        self.relaunch("crash", [])
        self.wait_for_state("t1", "suspended(network)")
        self.assertNotIn("downloaded", [e.get("to") for e in self.events()])
        self.assertNotIn("finished", [e.get("name") for e in self.events()])


if __name__ == "__main__":
    unittest.main()
