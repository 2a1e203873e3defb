"""HLS playlists, just enough for an offline downloader (RFC 8216 subset).

Pure functions over playlist text: parse a master playlist, choose what to download
(as Deadzone's engine does), parse a media playlist into its segments and keys, and
write the package's master playlist naming only what was downloaded.
"""

import re
from urllib.parse import urljoin, urlsplit

_ATTRIBUTE = re.compile(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)')
VIDEO_CODECS = {"avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "vp09", "vp08", "mp4v"}


class PlaylistError(Exception):
    """A playlist this downloader cannot use; the message says why."""


def attributes(text):
    """`A=1,B="x,y"` → {"A": "1", "B": "x,y"} (quotes removed)."""
    return {name: value[1:-1] if value.startswith('"') else value for name, value in _ATTRIBUTE.findall(text)}


def _lines(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or lines[0] != "#EXTM3U":
        raise PlaylistError("not an HLS playlist (no #EXTM3U first line)")
    return lines


def parse_master(text):
    """The variants (`{"attrs", "uri", "line"}`) and renditions (`{"attrs", "line"}`) of a master playlist."""
    variants, renditions = [], []
    lines = _lines(text)
    for number, line in enumerate(lines):
        if line.startswith("#EXT-X-MEDIA:"):
            renditions.append({"attrs": attributes(line.split(":", 1)[1]), "line": line})
        elif line.startswith("#EXT-X-STREAM-INF:"):
            uri = next((l for l in lines[number + 1:] if not l.startswith("#")), None)
            if uri is None:
                raise PlaylistError("#EXT-X-STREAM-INF without a URI line")
            variants.append({"attrs": attributes(line.split(":", 1)[1]), "uri": uri, "line": line})
    if not variants:
        raise PlaylistError("the master playlist names no variant")
    return {"variants": variants, "renditions": renditions, "text": text}


def has_video(variant):
    """A variant has video when it has a RESOLUTION or a video codec in CODECS."""
    attrs = variant["attrs"]
    if "RESOLUTION" in attrs:
        return True
    return any(codec.strip().split(".")[0].lower() in VIDEO_CODECS for codec in attrs.get("CODECS", "").split(","))


def _renditions(master, media_type, group, languages):
    candidates = [r for r in master["renditions"]
                  if r["attrs"].get("TYPE") == media_type and group and r["attrs"].get("GROUP-ID") == group]
    if not languages:
        default = next((r for r in candidates if r["attrs"].get("DEFAULT") == "YES"), None)
        chosen = default or (candidates[0] if candidates else None)
        return [chosen] if chosen else []
    chosen = []
    for language in languages:
        match = next((r for r in candidates if r["attrs"].get("LANGUAGE", "").lower() == language.lower()), None)
        if match is None:
            available = ", ".join(r["attrs"].get("LANGUAGE", "?") for r in candidates) or "none"
            raise PlaylistError(f"no {media_type} rendition in language {language}; available: {available}")
        if match not in chosen:
            chosen.append(match)
    return chosen


def select(master, audio_languages=(), subtitle_languages=()):
    """What to download, as Deadzone's engine chooses: the lowest-BANDWIDTH variant with
    video, and of its AUDIO and SUBTITLES groups the renditions in the languages asked
    for (none asked: the DEFAULT=YES one, else the first).

    Returns [{"selection": "video"|"audio_fr"|"subs_de", "uri": …, "line": …}], video first.
    """
    ladder = sorted((v for v in master["variants"] if has_video(v)), key=lambda v: int(v["attrs"].get("BANDWIDTH", 0)))
    if not ladder:
        raise PlaylistError("no variant has video")
    variant = ladder[0]
    chosen = [{"selection": "video", "uri": variant["uri"], "line": variant["line"]}]
    for media_type, prefix, languages, group in (
        ("AUDIO", "audio", audio_languages, variant["attrs"].get("AUDIO")),
        ("SUBTITLES", "subs", subtitle_languages, variant["attrs"].get("SUBTITLES")),
    ):
        for rendition in _renditions(master, media_type, group, list(languages)):
            language = rendition["attrs"].get("LANGUAGE") or rendition["attrs"].get("NAME", "x")
            if "URI" in rendition["attrs"]:
                chosen.append({"selection": f"{prefix}_{language}", "uri": rendition["attrs"]["URI"],
                               "line": rendition["line"]})
    return chosen


def package_master(master, chosen):
    """The master playlist of the offline package: the original's header tags, the chosen
    renditions and the chosen variant only (URIs unchanged: the package mirrors the
    origin's layout below the master's directory)."""
    keep = {c["line"] for c in chosen}
    out, lines, skip_uri = [], _lines(master["text"]), False
    for line in lines:
        if skip_uri and not line.startswith("#"):
            skip_uri = False
            continue
        if line.startswith("#EXT-X-MEDIA:") or line.startswith("#EXT-X-I-FRAME-STREAM-INF:"):
            if line in keep:
                out.append(line)
        elif line.startswith("#EXT-X-STREAM-INF:"):
            if line in keep:
                out.append(line)
            else:
                skip_uri = True
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def parse_media(text):
    """The segments of a VOD media playlist: [{"uri", "key": {"METHOD", "URI", …} or None}]."""
    segments, key, pending = [], None, False
    lines = _lines(text)
    for line in lines:
        if line.startswith("#EXT-X-KEY:"):
            key = attributes(line.split(":", 1)[1])
            if key.get("METHOD") == "NONE":
                key = None
        elif line.startswith("#EXT-X-BYTERANGE") or line.startswith("#EXT-X-MAP"):
            raise PlaylistError(f"{line.split(':')[0]} is not supported by this downloader")
        elif line.startswith("#EXTINF"):
            pending = True
        elif not line.startswith("#"):
            if not pending:
                raise PlaylistError(f"segment {line} has no #EXTINF")
            segments.append({"uri": line, "key": key})
            pending = False
    if "#EXT-X-ENDLIST" not in lines:
        raise PlaylistError("not a VOD playlist (no #EXT-X-ENDLIST): live streams cannot be downloaded")
    return segments


def is_fetched_key(uri):
    """Whether a key URI names a resource to store (`skd:` keys come from the license, `data:` are inline)."""
    scheme = urlsplit(uri).scheme.lower()
    return scheme not in ("skd", "data")


def local_path(master_url, resource_url):
    """Where a resource lives in the package: its path relative to the master's directory.
    Raises PlaylistError for a resource outside it (this downloader does not rewrite URIs)."""
    base = urlsplit(urljoin(master_url, "."))
    target = urlsplit(resource_url)
    if (target.scheme, target.netloc) != (base.scheme, base.netloc) or not target.path.startswith(base.path):
        raise PlaylistError(f"{resource_url} is outside the master playlist's directory")
    relative = target.path[len(base.path):]
    if not relative or ".." in relative.split("/"):
        raise PlaylistError(f"{resource_url} has no safe local name")
    return relative
