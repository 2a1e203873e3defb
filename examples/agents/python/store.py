"""The app's storage directory: a sqlite3 index and one package directory per download.

    <storage>/index.sqlite          downloads, stored segments, licenses, the user's settings
    <storage>/packages/<token>/     the offline package: master.m3u8 and, mirroring the
                                    origin's layout below the master's directory, media
                                    playlists, segments (`.part` while in flight), keys,
                                    init sections

A stored segment is recorded by its path in the package (a byte range's file of its own,
`v0/all.bytes-0-999.ts`, is not the origin path it shares with the file's other ranges).

Every write commits at once: the process may be killed (SIGKILL) at any instant, and
what the index says must be true of the disk at the next launch. The index is in WAL mode
with synchronous=NORMAL: a commit survives the process's death (not a power cut) with no
fsync of its own, so a busy disk does not hold a state change back for seconds (on a
fresh clone's busy CI a force-quit's failure was once reported 5.2 s after the launch,
past the guides' 5 s; the commit's fsyncs are the likeliest wait). Thread-safe (one lock).
"""

import json
import os
import shutil
import sqlite3
import threading

SCHEMA = """
CREATE TABLE IF NOT EXISTS downloads (
    token TEXT PRIMARY KEY, request TEXT NOT NULL, state TEXT NOT NULL, plan TEXT,
    requested_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS segments (
    token TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (token, path));
CREATE TABLE IF NOT EXISTS licenses (
    token TEXT PRIMARY KEY, license TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Store:
    """The index and the package directories under `storage`."""

    def __init__(self, storage):
        self.storage = storage
        os.makedirs(os.path.join(storage, "packages"), exist_ok=True)
        self._db = sqlite3.connect(os.path.join(storage, "index.sqlite"), check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def _run(self, sql, *args):
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def package_dir(self, token):
        return os.path.join(self.storage, "packages", token)

    # The user's settings (they outlive the process)

    def setting(self, key, default=None):
        rows = self._run("SELECT value FROM settings WHERE key = ?", key)
        return json.loads(rows[0][0]) if rows else default

    def set_setting(self, key, value):
        self._run("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", key, json.dumps(value))

    # Downloads

    def add(self, token, request, state, requested_at):
        self._run("INSERT INTO downloads (token, request, state, requested_at) VALUES (?, ?, ?, ?)",
                  token, json.dumps(request), state, requested_at)

    def set_state(self, token, state):
        self._run("UPDATE downloads SET state = ? WHERE token = ?", state, token)

    def set_plan(self, token, plan):
        self._run("UPDATE downloads SET plan = ? WHERE token = ?", json.dumps(plan), token)

    def downloads(self):
        """Every download: [{"token", "request", "state", "plan", "requested_at"}], oldest first."""
        rows = self._run("SELECT token, request, state, plan, requested_at FROM downloads ORDER BY requested_at")
        return [{"token": t, "request": json.loads(r), "state": s, "plan": json.loads(p) if p else None,
                 "requested_at": at} for t, r, s, p, at in rows]

    # Segments

    def mark_stored(self, token, path):
        self._run("INSERT OR IGNORE INTO segments (token, path) VALUES (?, ?)", token, path)

    def stored(self, token):
        return {path for (path,) in self._run("SELECT path FROM segments WHERE token = ?", token)}

    # Licenses

    def save_license(self, token, license):
        self._run("INSERT OR REPLACE INTO licenses (token, license) VALUES (?, ?)", token, json.dumps(license))

    def license(self, token):
        rows = self._run("SELECT license FROM licenses WHERE token = ?", token)
        return json.loads(rows[0][0]) if rows else None

    # Removal

    def remove(self, token):
        """Forgets the download and deletes its package: nothing of it is left."""
        self._run("DELETE FROM segments WHERE token = ?", token)
        self._run("DELETE FROM licenses WHERE token = ?", token)
        self._run("DELETE FROM downloads WHERE token = ?", token)
        shutil.rmtree(self.package_dir(token), ignore_errors=True)

    def files(self, token):
        """How many regular files the package directory holds."""
        return sum(len(names) for _, _, names in os.walk(self.package_dir(token)))

    def partial_files(self, token):
        """(package-relative path without `.part`, size) of each non-empty `.part` file."""
        root, found = self.package_dir(token), []
        for directory, _, names in os.walk(root):
            for name in names:
                full = os.path.join(directory, name)
                if name.endswith(".part") and os.path.getsize(full) > 0:
                    found.append((os.path.relpath(full, root)[:-5], os.path.getsize(full)))
        return sorted(found)
