"""The download engine: one worker thread per download, one lock (a Condition) for
all shared state. Commands (agent.py) call the public methods here, which change state
and wake the workers; the workers (worker.py, license.py) do the network and disk work
outside the lock and report what happened.

A download's life, in the protocol's states:

    notDownloaded → requested → downloading ⇄ suspended(network | cellularNotAllowed |
    awaitingForeground | user) → downloaded;  any of those → canceling → notDownloaded;
    in flight → failed (a permanent error, or a relaunch after a force-quit or reboot).

`downloading` is reported when bytes arrive, so a retry that reaches nobody never
claims progress. Every state is written to the index before it is reported.
"""

import os
import threading
import time
import uuid

from download import FIRST_BACKOFF, MASTER, Download, Refused
from license import Licensing
from protocol import (CANCELING, DOWNLOADED, DOWNLOADING, FAILED, FAILS_IN_FLIGHT, FAR_FUTURE,
                      IN_FLIGHT, NO_CELLULAR, NO_NETWORK, NOT_DOWNLOADED, PAUSED, REQUESTED, rfc3339)
from worker import Worker

PREPARE_SECONDS = 25.0  # prepareForBackground waits at most this for licenses (the harness's limit is 30 s)


class Engine(Worker, Licensing):
    """Every download of the storage directory, and what the operating system said last."""

    def __init__(self, store, wire):
        self.store, self.wire = store, wire
        self.cond = threading.Condition(threading.RLock())
        self.downloads = {}
        self.interfaces = []  # from setPath, WiFi first
        self.foreground = True
        self.holding_licenses = False  # after prepareForBackground: no new exchange until foreground
        # The user's cellular setting: off until set, and it outlives a relaunch.
        self.allows_cellular = bool(store.setting("allowsCellular", False))
        # The harness sends setPath right after hello; until then (at most PATH_WAIT s)
        # a restored download neither starts nor claims it has no network.
        self.path_known, self.launched_at = False, time.monotonic()

    # --- launch -------------------------------------------------------------------

    def restore(self, after):
        """Loads the index after a launch; fails the downloads in flight after a force-quit or reboot."""
        for row in self.store.downloads():
            d = Download(row["token"], row["request"], row["state"], row["plan"], row["requested_at"])
            d.license = self.store.license(d.token)
            self.downloads[d.token] = d
        with self.cond:
            for d in list(self.downloads.values()):
                if d.state == CANCELING:
                    self.store.remove(d.token)
                    self._set(d, NOT_DOWNLOADED)
                    del self.downloads[d.token]
                elif d.state in IN_FLIGHT and after in FAILS_IN_FLIGHT:
                    self._set(d, FAILED)
            for d in self.downloads.values():
                if d.state in IN_FLIGHT:
                    self._start(d)

    # --- commands -----------------------------------------------------------------

    def set_path(self, interfaces):
        with self.cond:
            self.path_known = True
            self.interfaces = sorted(interfaces, key=lambda i: i.get("kind") != "wifi")
            for d in self.downloads.values():
                if d.state not in IN_FLIGHT or d.state == PAUSED:
                    continue
                interface, waiting = self._interface_for(d)
                if d.attempts and (interface is None or interface["endpoint"] != d.attempts[0].interface["endpoint"]):
                    d.abort()  # its interface is gone, or a better one came: go on over it
                if interface is None:
                    self._set(d, waiting)
                d.backoff, d.retry_at = FIRST_BACKOFF, 0.0
            self.cond.notify_all()

    def set_foreground(self, foreground):
        with self.cond:
            self.foreground = foreground
            if foreground:
                self.holding_licenses = False
            self.cond.notify_all()

    def set_allows_cellular(self, allowed):
        with self.cond:
            self.allows_cellular = allowed
            self.store.set_setting("allowsCellular", allowed)

    def request(self, command):
        video = command["video"]
        if not video.get("offline_enabled", True):
            raise Refused(f"video {video.get('id')} may not be downloaded (offline_enabled is false)")
        allows = command.get("allowsCellular")
        request = {
            "video": video, "catalogURL": command["catalogURL"],
            "allowsCellular": self.allows_cellular if allows is None else bool(allows),
            "rentalSeconds": command.get("rentalSeconds"),
            "audioLanguages": command.get("audioLanguages") or [],
            "subtitleLanguages": command.get("subtitleLanguages") or [],
        }
        d = Download(str(uuid.uuid4()), request, REQUESTED)
        self.store.add(d.token, request, REQUESTED, d.requested_at)
        return d

    def start_requested(self, d):
        """Reports the new download (after its id was answered) and starts its worker."""
        with self.cond:
            self.downloads[d.token] = d
            self._report(d, NOT_DOWNLOADED, REQUESTED)
            self._start(d)

    def pause(self, token):
        with self.cond:
            d = self._known(token)
            if d.state not in IN_FLIGHT:
                raise Refused(f"download {token} is {d.state}; only a download in flight pauses")
            if d.state != PAUSED:
                self._set(d, PAUSED)
                d.abort()

    def resume(self, token):
        with self.cond:
            d = self._known(token)
            if d.state != PAUSED:
                raise Refused(f"download {token} is {d.state}, not paused")
            interface, waiting = self._interface_for(d)
            self._set(d, DOWNLOADING if interface else waiting)
            d.backoff, d.retry_at = FIRST_BACKOFF, 0.0
            self.cond.notify_all()

    def remove(self, token):
        """cancel and delete: stop the worker, then delete every file and record of it."""
        with self.cond:
            d = self._known(token)
            if d.state in IN_FLIGHT:
                self._set(d, CANCELING)
                d.abort()
            self.cond.notify_all()
        if d.thread is not None:
            d.thread.join(timeout=20)
        with self.cond:
            self.store.remove(token)
            self._set(d, NOT_DOWNLOADED)
            del self.downloads[token]

    def prepare_for_background(self):
        """Finishes the license exchanges under way or due, then holds new ones until the
        foreground. Returns {download: why it has no license} for those still without."""
        deadline = time.monotonic() + PREPARE_SECONDS
        with self.cond:
            while time.monotonic() < deadline and any(self._license_due(d) for d in self.downloads.values()):
                self.cond.wait(0.2)
            self.holding_licenses = True
            return {d.token: self._why_no_license(d) for d in self.downloads.values()
                    if d.needs_license and d.state in IN_FLIGHT}

    def inspect(self, token):
        with self.cond:
            d = self.downloads.get(token)
            if d is None:
                return {"download": token, "known": False, "playable": False, "files": self.store.files(token),
                        "unplayableReason": f"no download {token} is known"}
            package = os.path.join(self.store.package_dir(token), MASTER)
            expires = d.expiration()
            reason = None
            if d.state != DOWNLOADED:
                reason = f"the download is {d.state}"
            elif d.key_system is not None and d.license is None:
                reason = "no license"
            elif expires is not None and expires <= time.time():
                reason = "license expired"  # the exact words offline-playback recognises
            elif not os.path.exists(package):
                reason = "the package is missing"
            answer = {"download": token, "known": True, "state": d.state, "playable": reason is None,
                      "files": self.store.files(token)}
            if reason:
                answer["unplayableReason"] = reason
            if d.state == DOWNLOADED:
                answer["package"] = package
            if expires is not None:
                answer["licenseExpiration"] = rfc3339(expires)
            elif d.license is not None:
                answer["licenseExpiration"] = FAR_FUTURE
            return answer

    # --- state --------------------------------------------------------------------

    def _known(self, token):
        d = self.downloads.get(token)
        if d is None:
            raise Refused(f"no download {token} is known")
        return d

    def _report(self, d, old, new):
        self.wire.event("stateChanged", download=d.token, **{"from": old, "to": new})

    def _set(self, d, state):
        """Persists, then reports, a change of state (none when it is the same)."""
        if d.state == state:
            return
        old, d.state = d.state, state
        if state != NOT_DOWNLOADED:
            self.store.set_state(d.token, state)
        self._report(d, old, state)
        self.cond.notify_all()

    def _interface_for(self, d):
        """(the interface to use, None) or (None, the suspended state to wait in)."""
        wifi = next((i for i in self.interfaces if i.get("kind") == "wifi"), None)
        if wifi:
            return wifi, None
        cellular = next((i for i in self.interfaces if i.get("kind") == "cellular"), None)
        if cellular:
            return (cellular, None) if d.request["allowsCellular"] else (None, NO_CELLULAR)
        return None, NO_NETWORK

    def _may_exchange_license(self):
        return self.foreground and not self.holding_licenses

    def _license_due(self, d):
        if not d.needs_license or d.state not in IN_FLIGHT or d.state == PAUSED:
            return False
        return d.licensing or self._interface_for(d)[0] is not None

    def _why_no_license(self, d):
        if self._interface_for(d)[0] is None:
            return "no allowed interface is up to reach the license server"
        return "the license exchange did not finish in time"
