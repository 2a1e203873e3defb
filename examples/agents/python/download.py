"""One download: what the user asked for, its state, and its worker's bookkeeping."""

import time
from urllib.parse import urljoin, urlsplit

FIRST_BACKOFF, MAX_BACKOFF = 0.5, 4.0  # seconds between retries; bounded, never a storm
MASTER = "master.m3u8"  # the package's master playlist, in the package directory


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

    def origin(self):
        """The authority (host:port) of the catalog URL: the origin the endpoints forward to."""
        return urlsplit(self.request.get("catalogURL", "")).netloc or None

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
