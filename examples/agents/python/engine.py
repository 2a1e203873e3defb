"""The download engine: one worker thread per download, one lock (a Condition) for
all shared state. Commands (agent.py) change state and wake the workers; workers do
the network and disk work outside the lock and report what happened.

A download's life, in the protocol's states:

    notDownloaded → requested → downloading ⇄ suspended(network | cellularNotAllowed |
    awaitingForeground | user) → downloaded;  any of those → canceling → notDownloaded;
    in flight → failed (a permanent error, or a relaunch after a force-quit or reboot).

`downloading` is reported when bytes arrive, so a retry that reaches nobody never
claims progress. Every state is written to the index before it is reported.
"""

import base64
import collections
import json
import os
import threading
import time
import uuid
from urllib.parse import urljoin, urlsplit

import hls
import transport
from protocol import (AWAITING_FOREGROUND, CANCELING, DOWNLOADED, DOWNLOADING, FAILED, FAILS_IN_FLIGHT, FAR_FUTURE,
                      IN_FLIGHT, NO_CELLULAR, NO_NETWORK, NOT_DOWNLOADED, PAUSED, REQUESTED, log, rfc3339)
from transport import Aborted, Attempt, NetworkError, StatusError

FIRST_BACKOFF, MAX_BACKOFF = 0.5, 4.0  # seconds; bounded retries, never a storm
LANES = 2  # segments fetched at once per download, each on its own connection
PATH_WAIT = 2.0  # seconds a launch waits for the first setPath
PREPARE_SECONDS = 25.0  # prepareForBackground waits at most this for licenses (the harness's limit is 30 s)
MASTER = "master.m3u8"


class Refused(Exception):
    """A permanent failure: the download fails (the message says why)."""


class Download:
    """One download: what the user asked for, its state, and its worker's bookkeeping."""

    def __init__(self, token, request, state, plan=None, requested_at=None):
        self.token, self.request, self.state, self.plan = token, request, state, plan
        self.requested_at = requested_at or time.time()
        self.license = None
        self.attempts = []  # the requests in progress (one per lane), abortable
        self.licensing = False  # a license exchange is under way
        self.backoff, self.retry_at = FIRST_BACKOFF, 0.0
        self.stored_count = {}  # selection → segments stored
        self.thread = None

    def abort(self):
        for attempt in list(self.attempts):
            attempt.abort()

    @property
    def key_system(self):
        """The catalog's FairPlay-style key system ({name, certificate_url, license_url, key_uri}), or None."""
        for source in self.request["video"].get("sources", []):
            for system in source.get("key_systems") or []:
                if system.get("license_url") and str(system.get("key_uri", "")).startswith("skd://"):
                    return system
        return None

    @property
    def needs_license(self):
        return self.key_system is not None and self.license is None

    def master_url(self):
        sources = self.request["video"].get("sources", [])
        source = next((s for s in sources if s.get("type") == "application/x-mpegURL"), sources[0] if sources else None)
        if source is None:
            raise Refused("the catalog entry has no source")
        return urljoin(self.request["catalogURL"], source["url"])

    def expiration(self):
        """Unix seconds when playback stops being allowed; None: never (or no license yet)."""
        if self.key_system is not None:
            return self.license.get("expires_at") if self.license else None
        seconds = self.request.get("rentalSeconds")
        return self.requested_at + seconds if seconds else None


class Engine:
    """Every download of the storage directory, and what the operating system said last."""

    def __init__(self, store, wire):
        self.store, self.wire = store, wire
        self.cond = threading.Condition(threading.RLock())
        self.downloads = {}
        self.interfaces = []  # from setPath, WiFi first
        self.foreground = True
        self.holding_licenses = False  # after prepareForBackground: no new exchange until foreground
        self.allows_cellular = True
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

    # --- the worker ---------------------------------------------------------------

    def _start(self, d):
        d.thread = threading.Thread(target=self._run, args=(d,), name=f"download-{d.token[:8]}", daemon=True)
        d.thread.start()

    def _run(self, d):
        while True:
            with self.cond:
                if d.state not in IN_FLIGHT:
                    return
                interface, waiting = self._interface_for(d)
                wait = None
                if not self.path_known and time.monotonic() < self.launched_at + PATH_WAIT:
                    wait = 0.1
                elif d.state == PAUSED:
                    wait = 1.0
                elif interface is None:
                    self._set(d, waiting)
                    wait = 1.0
                elif d.needs_license and not self._may_exchange_license():
                    self._set(d, AWAITING_FOREGROUND)
                    wait = 1.0
                elif d.retry_at > time.monotonic():
                    wait = d.retry_at - time.monotonic()
                if wait is not None:
                    self.cond.wait(wait)
                    continue
                attempt = Attempt(interface)
                d.attempts = [attempt]
            try:
                self._download(d, attempt)
                return
            except Aborted:
                pass
            except NetworkError as error:
                log(d.token[:8], "network:", error)
                with self.cond:
                    if not attempt.aborted:  # (an abort already said what comes next)
                        if d.state in (REQUESTED, DOWNLOADING):
                            self._set(d, NO_NETWORK)
                        d.retry_at = time.monotonic() + d.backoff
                        d.backoff = min(d.backoff * 2, MAX_BACKOFF)
            except (Refused, StatusError, hls.PlaylistError, OSError, ValueError, KeyError) as error:
                log(d.token[:8], "failed:", error)
                with self.cond:
                    if d.state in IN_FLIGHT and not attempt.aborted:
                        self.wire.event("error", download=d.token, message=str(error))
                        self._set(d, FAILED)
            finally:
                attempt.drop()
                with self.cond:
                    if attempt in d.attempts:
                        d.attempts = []

    def _go_on(self, d, attempt):
        """Raises Aborted when the worker must stop starting requests (paused, cancelled, path changed)."""
        with self.cond:
            if attempt.aborted or d.state not in IN_FLIGHT or d.state == PAUSED:
                raise Aborted()

    def _on_bytes(self, d, attempt):
        def received(count):
            with self.cond:
                if attempt.aborted or d.state not in IN_FLIGHT:
                    return
                d.backoff = FIRST_BACKOFF
                if d.state != DOWNLOADING and d.state != PAUSED:
                    self._set(d, DOWNLOADING)
        return received

    def _download(self, d, attempt):
        if d.plan is None:
            self._plan(d, attempt)
        if d.needs_license:
            self._acquire_license(d, attempt)
        stored = self.store.stored(d.token)
        d.stored_count, pending = {}, []
        for resource in d.plan["resources"]:
            if resource["path"] in stored or self._already_whole(d, resource):
                self._count(d, resource)
            else:
                pending.append(resource)
        self._fetch_in_lanes(d, attempt, pending)
        with self.cond:
            if attempt.aborted or d.state not in IN_FLIGHT or d.state == PAUSED:
                raise Aborted()
            self._set(d, DOWNLOADING)
            for selection in d.plan["selections"]:
                self.wire.event("progress", download=d.token, selection=selection, fraction=1.0)
            self._set(d, DOWNLOADED)
            self.wire.event("finished", download=d.token, package=os.path.join(self.store.package_dir(d.token), MASTER))

    def _fetch_in_lanes(self, d, attempt, pending):
        """Fetches `pending` in order over LANES connections at once (a lost packet holds
        one connection, not the download). The first error stops handing out work; it
        is raised once every lane stopped."""
        queue, errors = collections.deque(pending), []
        with self.cond:
            lanes = [attempt] + [Attempt(attempt.interface) for _ in range(min(LANES, len(pending)) - 1)]
            d.attempts.extend(lanes[1:])

        def lane(lane_attempt):
            try:
                while True:
                    with self.cond:
                        if errors or not queue:
                            return
                        resource = queue.popleft()
                    self._go_on(d, lane_attempt)
                    self._fetch_resource(d, lane_attempt, resource)
            except Exception as error:  # noqa: BLE001 - handed to the worker loop
                errors.append(error)
            finally:
                if lane_attempt is not attempt:
                    lane_attempt.drop()

        helpers = [threading.Thread(target=lane, args=(a,), daemon=True) for a in lanes[1:]]
        for helper in helpers:
            helper.start()
        lane(attempt)
        for helper in helpers:
            helper.join()
        if errors:
            raise next((e for e in errors if not isinstance(e, Aborted)), errors[0])

    def _plan(self, d, attempt):
        """Master playlist → the chosen renditions' media playlists, written into the
        package; the plan lists every key and segment to fetch, keys first."""
        on_bytes = self._on_bytes(d, attempt)
        master_url = d.master_url()
        master = hls.parse_master(transport.fetch_bytes(attempt, master_url, on_bytes).decode())
        chosen = hls.select(master, d.request["audioLanguages"], d.request["subtitleLanguages"])
        keys, segments, selections = [], [], {}
        for choice in chosen:
            self._go_on(d, attempt)
            url = urljoin(master_url, choice["uri"])
            text = transport.fetch_bytes(attempt, url, on_bytes).decode()
            media = hls.parse_media(text)
            self._write(d, hls.local_path(master_url, url), text.encode())
            selections[choice["selection"]] = len(media)
            for index, segment in enumerate(media):
                key = segment["key"]
                if key and hls.is_fetched_key(key.get("URI", "")):
                    key_url = urljoin(url, key["URI"])
                    if all(k["url"] != key_url for k in keys):
                        keys.append(self._resource(master_url, key_url, "keys", len(keys)))
                segments.append(self._resource(master_url, urljoin(url, segment["uri"]), choice["selection"], index))
        self._write(d, MASTER, hls.package_master(master, chosen).encode())
        plan = {"resources": keys + segments, "selections": selections}
        self.store.set_plan(d.token, plan)
        d.plan = plan

    @staticmethod
    def _resource(master_url, url, stream, index):
        return {"url": url, "path": urlsplit(url).path, "local": hls.local_path(master_url, url),
                "stream": stream, "index": index}

    def _write(self, d, local, data):
        path = os.path.join(self.store.package_dir(d.token), local)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)

    def _already_whole(self, d, resource):
        """A file renamed from `.part` before a kill let the index record it: it is whole."""
        if os.path.exists(os.path.join(self.store.package_dir(d.token), resource["local"])):
            self.store.mark_stored(d.token, resource["path"])
            return True
        return False

    def _count(self, d, resource):
        if resource["stream"] in d.plan["selections"]:
            d.stored_count[resource["stream"]] = d.stored_count.get(resource["stream"], 0) + 1

    def _fetch_resource(self, d, attempt, resource):
        """One key or segment: into `.part` (resumed by Range from what it holds), then renamed."""
        final = os.path.join(self.store.package_dir(d.token), resource["local"])
        part = final + ".part"
        os.makedirs(os.path.dirname(final), exist_ok=True)
        have = os.path.getsize(part) if os.path.exists(part) else 0
        headers = {"Range": f"bytes={have}-"} if have else {}
        response = transport.open_response(attempt, resource["url"], headers=headers)
        if response.status == 416 and have:
            attempt.drop()
            total = response.getheader("Content-Range", "").rpartition("/")[2]
            if total == str(have):  # the part was whole already
                return self._stored(d, resource, part, final)
            os.remove(part)
            raise NetworkError(f"{resource['path']}: the partial file does not fit the resource; fetching it again")
        if response.status not in (200, 206):
            attempt.drop()
            raise StatusError(response.status)
        if response.status == 206 and not response.getheader("Content-Range", "").startswith(f"bytes {have}-"):
            attempt.drop()
            raise NetworkError(f"{resource['path']}: the server answered another range")
        with open(part, "ab" if response.status == 206 else "wb") as f:
            def write(chunk):
                f.write(chunk)
                f.flush()  # what the disk holds at a kill is what a relaunch resumes after
            transport.stream(attempt, response, write, self._on_bytes(d, attempt))
        self._stored(d, resource, part, final)

    def _stored(self, d, resource, part, final):
        with self.cond:
            if d.state not in IN_FLIGHT:
                raise Aborted()
            os.replace(part, final)
            self.store.mark_stored(d.token, resource["path"])
            self.wire.event("segmentStored", download=d.token, stream=resource["stream"], index=resource["index"],
                            bytes=os.path.getsize(final), path=resource["path"])
            self._count(d, resource)
            selection = resource["stream"]
            if selection in d.plan["selections"]:
                fraction = d.stored_count[selection] / max(1, d.plan["selections"][selection])
                self.wire.event("progress", download=d.token, selection=selection, fraction=min(1.0, fraction))

    def _acquire_license(self, d, attempt):
        """Certificate, then license (POST), in the foreground only; the license is stored
        in the index before it is claimed."""
        with self.cond:
            if not self._may_exchange_license():
                raise Aborted()  # the loop waits in suspended(awaitingForeground)
            d.licensing = True
        try:
            system, on_bytes = d.key_system, self._on_bytes(d, attempt)
            base = d.request["catalogURL"]
            asset, _, key_id = system["key_uri"][len("skd://"):].partition("/")
            transport.fetch_bytes(attempt, urljoin(base, system["certificate_url"]), on_bytes)
            self._go_on(d, attempt)
            rental = d.request.get("rentalSeconds")
            terms = {"kind": "rental", "rental_duration_seconds": rental} if rental else {"kind": "purchase"}
            nonce = str(uuid.uuid4())
            body = json.dumps({"asset_id": asset, "key_id": key_id, "nonce": nonce, "terms": terms}).encode()
            try:
                answer = transport.fetch_bytes(attempt, urljoin(base, system["license_url"]), on_bytes, "POST", body)
            except StatusError as error:
                refusal = _json(error.body)
                if refusal.get("code") == "app_in_background":
                    raise NetworkError("the license server refuses in the background") from error
                self.wire.event("licenseFailed", download=d.token, reason=refusal.get("message", str(error)))
                raise Refused(f"license refused ({refusal.get('code', error.status)})") from error
            license = _json(answer)
            if (license.get("asset_id"), license.get("key_id"), license.get("nonce")) != (asset, key_id, nonce):
                raise Refused("the license answers another request")
            if len(base64.b64decode(license.get("content_key", ""))) != 16:
                raise Refused("the license carries no 16-byte content key")
            with self.cond:
                self.store.save_license(d.token, license)
                d.license = license
                expires = license.get("expires_at")
                self.wire.event("licenseAcquired", download=d.token,
                                expiration=rfc3339(expires) if expires else FAR_FUTURE)
        finally:
            with self.cond:
                d.licensing = False
                self.cond.notify_all()


def _json(data):
    try:
        value = json.loads(data or b"{}")
        return value if isinstance(value, dict) else {}
    except ValueError:
        return {}
