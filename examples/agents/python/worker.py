"""The worker of each download (a mixin of Engine): waits until it may go on, then
fetches the master playlist, the chosen media playlists, the license if it needs one,
and every key, init section and segment, two at a time; retries network failures with
backoff. A byte range (EXT-X-BYTERANGE, or an EXT-X-MAP's BYTERANGE) is fetched with
`Range` into a file of its own, which holds exactly its bytes.

Runs on the download's own thread; takes `self.cond` only to read or change state.
"""

import collections
import os
import threading
import time
from urllib.parse import urljoin, urlsplit

import hls
import transport
from download import FIRST_BACKOFF, MASTER, MAX_BACKOFF, Refused
from protocol import (AWAITING_FOREGROUND, DOWNLOADED, DOWNLOADING, FAILED, IN_FLIGHT, NO_NETWORK, PAUSED, REQUESTED,
                      log)
from transport import Aborted, Attempt, NetworkError, StatusError

LANES = 2  # segments fetched at once per download, each on its own connection
INIT = "init"  # the plan's stream of init sections (EXT-X-MAP)
PATH_WAIT = 2.0  # seconds a launch waits for the first setPath


class Worker:
    """The transfer half of Engine."""

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
                attempt = Attempt(interface, direct=d.origin())
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
            if resource["local"] in stored or self._already_whole(d, resource):
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
        one connection, not the download). The first error stops handing out work (a
        network error also cuts the other lanes' connections); it is raised once every
        lane stopped."""
        queue, errors = collections.deque(pending), []
        with self.cond:
            lanes = [attempt] + [Attempt(attempt.interface, attempt.direct) for _ in range(min(LANES, len(pending)) - 1)]
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
                if isinstance(error, NetworkError):  # the others would only stall as long again
                    for other in lanes:
                        if other is not lane_attempt:
                            other.cut()
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
        package (naming the local files); the plan lists every key, init section and
        segment to fetch, once each: keys first, each init section before the first
        segment it applies to."""
        on_bytes = self._on_bytes(d, attempt)
        master_url = d.master_url()
        master = hls.parse_master(transport.playlist_text(transport.fetch_bytes(attempt, master_url, on_bytes), master_url))
        chosen = hls.select(master, d.request["audioLanguages"], d.request["subtitleLanguages"])
        keys, segments, selections, planned = [], [], {}, set()
        for choice in chosen:
            self._go_on(d, attempt)
            url = urljoin(master_url, choice["uri"])
            text = transport.playlist_text(transport.fetch_bytes(attempt, url, on_bytes), url)
            media = hls.parse_media(text)
            self._write(d, hls.local_path(master_url, url), hls.local_media(text, url, master_url).encode())
            selections[choice["selection"]] = len(media)
            for index, segment in enumerate(media):
                key, init = segment["key"], segment["map"]
                if key and hls.is_fetched_key(key.get("URI", "")):
                    self._plan_once(keys, planned, master_url, urljoin(url, key["URI"]), "keys")
                if init:
                    self._plan_once(segments, planned, master_url, urljoin(url, init["uri"]), INIT, init["range"])
                self._plan_once(segments, planned, master_url, urljoin(url, segment["uri"]), choice["selection"],
                                segment["range"], index)
        stored_keys = {k["url"] for k in keys}
        self._write(d, MASTER, hls.package_master(master, chosen, master_url, stored_keys).encode())
        plan = {"resources": keys + segments, "selections": selections}
        self.store.set_plan(d.token, plan)
        d.plan = plan

    @staticmethod
    def _plan_once(resources, planned, master_url, url, stream, byterange=None, index=None):
        """Appends the resource at `url` (of `byterange`, (offset, length)) to `resources`
        unless a resource with its local name is planned already; `index` defaults to its
        place among the resources of `stream`."""
        local = hls.local_name(master_url, url, byterange)
        if local in planned:
            return
        planned.add(local)
        if index is None:
            index = sum(1 for r in resources if r["stream"] == stream)
        resources.append({"url": url, "path": urlsplit(url).path, "local": local, "stream": stream, "index": index,
                          "range": list(byterange) if byterange else None})

    def _write(self, d, local, data):
        path = os.path.join(self.store.package_dir(d.token), local)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)

    def _already_whole(self, d, resource):
        """A file renamed from `.part` before a kill let the index record it: it is whole."""
        if os.path.exists(os.path.join(self.store.package_dir(d.token), resource["local"])):
            self.store.mark_stored(d.token, resource["local"])
            return True
        return False

    def _count(self, d, resource):
        if resource["stream"] in d.plan["selections"]:
            d.stored_count[resource["stream"]] = d.stored_count.get(resource["stream"], 0) + 1

    def _fetch_resource(self, d, attempt, resource):
        """One key, init section or segment: into `.part` (resumed by Range from what it
        holds), then renamed."""
        final = os.path.join(self.store.package_dir(d.token), resource["local"])
        part = final + ".part"
        os.makedirs(os.path.dirname(final), exist_ok=True)
        have = os.path.getsize(part) if os.path.exists(part) else 0
        if resource.get("range"):
            return self._fetch_range(d, attempt, resource, part, final, have)
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
            transport.stream(attempt, response, _flushed(f), self._on_bytes(d, attempt))
        self._stored(d, resource, part, final)

    def _fetch_range(self, d, attempt, resource, part, final, have):
        """A byte range of a file into a file of its own: asks the range's bytes from
        `have` on (`transport.range_header`), never from the file's start nor past the
        range's end, and stores the file only when it holds exactly the range."""
        offset, length = resource["range"]
        if have > length:  # cannot be what this range wrote: start it again
            os.remove(part)
            have = 0
        if have == length:  # every byte arrived before a kill, not yet renamed
            return self._stored(d, resource, part, final)
        header = transport.range_header(offset, length, have)
        response = transport.open_response(attempt, resource["url"], headers={"Range": header})
        if response.status != 206:
            attempt.drop()
            if response.status == 200:
                raise Refused(f"{resource['path']}: the server answered the whole file to Range {header}")
            raise StatusError(response.status)
        answered = response.getheader("Content-Range", "")
        if not answered.startswith(f"bytes {offset + have}-{offset + length - 1}/"):
            attempt.drop()
            raise NetworkError(f"{resource['path']}: asked Range {header}, answered {answered or 'no range'}")
        with open(part, "ab") as f:
            transport.stream(attempt, response, _flushed(f), self._on_bytes(d, attempt))
        size = os.path.getsize(part)
        if size > length:  # more than the range: never stored
            os.remove(part)
        if size != length:
            raise NetworkError(f"{resource['path']}: {size} bytes of the range's {length} arrived")
        self._stored(d, resource, part, final)

    def _stored(self, d, resource, part, final):
        with self.cond:
            if d.state not in IN_FLIGHT:
                raise Aborted()
            os.replace(part, final)
            self.store.mark_stored(d.token, resource["local"])
            self._count(d, resource)
            if resource["stream"] == INIT:  # no media segment: the harness reads init sections from the package
                return
            self.wire.event("segmentStored", download=d.token, stream=resource["stream"], index=resource["index"],
                            bytes=os.path.getsize(final), path=resource["path"])
            selection = resource["stream"]
            if selection in d.plan["selections"]:
                fraction = d.stored_count[selection] / max(1, d.plan["selections"][selection])
                self.wire.event("progress", download=d.token, selection=selection, fraction=min(1.0, fraction))


def _flushed(f):
    """A writer of chunks into `f`, each flushed: what the disk holds at a kill is what a
    relaunch resumes after."""
    def write(chunk):
        f.write(chunk)
        f.flush()
    return write
