"""Unit tests of store.py (sqlite index, package directories) and of the engine's
relaunch rules, without a network."""

import io
import json
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine import Engine  # noqa: E402
from protocol import Wire  # noqa: E402
from store import Store  # noqa: E402

REQUEST = {"video": {"id": "clear", "sources": [{"url": "/videos/clear/master.m3u8",
                                                 "type": "application/x-mpegURL"}]},
           "catalogURL": "http://127.0.0.1:1/videos/clear", "allowsCellular": False, "rentalSeconds": None,
           "audioLanguages": [], "subtitleLanguages": []}


class StoreTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.store = Store(self.directory.name)

    def tearDown(self):
        self.directory.cleanup()

    def test_a_download_survives_a_new_store_on_the_same_directory(self):
        self.store.add("t1", REQUEST, "downloading", 1.0)
        self.store.set_plan("t1", {"resources": [], "selections": {"video": 3}})
        self.store.mark_stored("t1", "/videos/clear/400k/seg0.ts")
        self.store.save_license("t1", {"expires_at": 5})
        again = Store(self.directory.name)
        [row] = again.downloads()
        self.assertEqual((row["token"], row["state"], row["plan"]["selections"]), ("t1", "downloading", {"video": 3}))
        self.assertEqual(again.stored("t1"), {"/videos/clear/400k/seg0.ts"})
        self.assertEqual(again.license("t1"), {"expires_at": 5})

    def test_the_cellular_setting_is_off_until_set_and_outlives_a_relaunch(self):
        self.assertFalse(Engine(self.store, Wire(io.StringIO())).allows_cellular)
        Engine(self.store, Wire(io.StringIO())).set_allows_cellular(True)
        relaunched = Engine(Store(self.directory.name), Wire(io.StringIO()))
        self.assertTrue(relaunched.allows_cellular)
        request = relaunched.request({"video": REQUEST["video"], "catalogURL": REQUEST["catalogURL"]})
        self.assertTrue(request.request["allowsCellular"], "a request that does not say takes the stored setting")

    def test_remove_leaves_nothing(self):
        self.store.add("t1", REQUEST, "downloading", 1.0)
        self.store.mark_stored("t1", "/p")
        self.store.save_license("t1", {})
        os.makedirs(os.path.join(self.store.package_dir("t1"), "400k"))
        with open(os.path.join(self.store.package_dir("t1"), "400k", "seg0.ts.part"), "wb") as f:
            f.write(b"abc")
        self.assertEqual(self.store.partial_files("t1"), [("400k/seg0.ts", 3)])
        self.assertEqual(self.store.files("t1"), 1)
        self.store.remove("t1")
        self.assertEqual((self.store.downloads(), self.store.stored("t1"), self.store.license("t1")), ([], set(), None))
        self.assertFalse(os.path.exists(self.store.package_dir("t1")))


class RelaunchTests(unittest.TestCase):
    """After a force-quit or a reboot, downloads in flight are reported failed at once."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.engine = None

    def tearDown(self):
        if self.engine:  # stop the workers before their directory goes
            with self.engine.cond:
                for d in self.engine.downloads.values():
                    d.state = "canceling"
                self.engine.cond.notify_all()
            for d in self.engine.downloads.values():
                if d.thread:
                    d.thread.join(timeout=5)
        self.directory.cleanup()

    def launch(self, after):
        store = Store(self.directory.name)
        store.add("t1", REQUEST, "downloading", 1.0)
        store.add("t2", REQUEST, "downloaded", 2.0)
        out = io.StringIO()
        self.engine = Engine(store, Wire(out))
        self.engine.set_path([])  # nothing up: a resumed download waits
        self.engine.restore(after)
        deadline = time.monotonic() + 5
        while self.engine.downloads["t1"].state == "downloading" and time.monotonic() < deadline:
            time.sleep(0.01)
        with self.engine.cond:
            events = [json.loads(line) for line in out.getvalue().splitlines()]
            states = {t: d.state for t, d in self.engine.downloads.items()}
        return events, states

    def test_force_quit_fails_the_download_in_flight(self):
        events, states = self.launch("userForceQuit")
        self.assertEqual(states, {"t1": "failed", "t2": "downloaded"})
        self.assertEqual([(e["download"], e["from"], e["to"]) for e in events], [("t1", "downloading", "failed")])

    def test_crash_resumes_it(self):
        events, states = self.launch("crash")
        self.assertEqual(states["t1"], "suspended(network)")  # resumed, and waiting for a network
        self.assertEqual([(e["from"], e["to"]) for e in events], [("downloading", "suspended(network)")])


if __name__ == "__main__":
    unittest.main()
