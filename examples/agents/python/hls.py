"""HLS playlists, just enough for an offline downloader (RFC 8216 subset).

Pure functions over playlist text: parse a master playlist, choose what to download
(as Deadzone's engine does), parse a media playlist into its segments, keys, init
sections (EXT-X-MAP) and byte ranges (EXT-X-BYTERANGE), and write the package's
playlists: the master naming only what was downloaded, each media playlist naming the
local files.

In the package every byte range is a file of its own (as in Deadzone's engine), so its
local playlist has no EXT-X-BYTERANGE and its EXT-X-MAP no BYTERANGE; I-frame playlists
are not downloaded, and the package's master does not name them.
"""

import posixpath
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


GROUP_TYPES = ("AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS")  # a variant's group attributes, each a TYPE


def package_master(master, chosen, master_url=None, stored_keys=()):
    """The master playlist of the offline package: the original's header tags, the chosen
    variant and renditions, and the renditions with no URI of the groups the variant names
    (audio in the video, closed captions: they name no file). With `master_url`, each URI
    is the local path of what it names.

    A group the variant names that no kept rendition defines is dropped from it (a player
    refuses an undefined group); I-frame variants are dropped (not downloaded), and so is
    session data naming a URI. A session key is kept when it needs no file, or (with
    `master_url`) when its URL is one of `stored_keys`, naming the local file."""
    keep = {c["line"] for c in chosen}
    variant = next(v for v in master["variants"] if v["line"] in keep)
    kept = [r for r in master["renditions"] if r["line"] in keep or _named_without_uri(r, variant)]
    kept_lines = {r["line"] for r in kept}
    defined = {(r["attrs"].get("TYPE"), r["attrs"].get("GROUP-ID")) for r in kept}
    out, uri_line = [], None  # uri_line: what to do with the next URI line ("keep" or "skip")
    for line in _lines(master["text"]):
        if uri_line and not line.startswith("#"):
            if uri_line == "keep":
                out.append(_local_uri(master_url, master_url, line))
            uri_line = None
        elif line.startswith("#EXT-X-STREAM-INF:"):
            uri_line = "keep" if line == variant["line"] else "skip"
            if uri_line == "keep":
                out.append(_defined_groups_only(line, defined))
        elif line.startswith("#EXT-X-MEDIA:"):
            if line in kept_lines:
                uri = attributes(line.split(":", 1)[1]).get("URI")
                out.append(_with_uri(line, _local_uri(master_url, master_url, uri)) if uri else line)
        elif line.startswith("#EXT-X-SESSION-KEY:"):
            out += _session_key(line, master_url, stored_keys)
        elif line.startswith("#EXT-X-I-FRAME-STREAM-INF:"):
            continue
        elif line.startswith("#EXT-X-SESSION-DATA:") and "URI" in attributes(line.split(":", 1)[1]):
            continue
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _named_without_uri(rendition, variant):
    """Whether `rendition` has no URI and is of a group `variant` names."""
    attrs = rendition["attrs"]
    media_type = attrs.get("TYPE")
    named = media_type in GROUP_TYPES and variant["attrs"].get(media_type) == attrs.get("GROUP-ID")
    return named and "URI" not in attrs


def _defined_groups_only(line, defined):
    """The EXT-X-STREAM-INF `line` without the group attributes no (TYPE, GROUP-ID) of `defined` is."""
    attrs = attributes(line.split(":", 1)[1])
    for name in GROUP_TYPES:
        group = attrs.get(name)
        if group and not (name == "CLOSED-CAPTIONS" and group == "NONE") and (name, group) not in defined:
            line = re.sub(rf'(?<=[:,]){name}="[^"]*",?', "", line).rstrip(",")
    return line


def _session_key(line, master_url, stored_keys):
    """The package's form of an EXT-X-SESSION-KEY `line`: [] when its file is not stored."""
    uri = attributes(line.split(":", 1)[1]).get("URI", "")
    if not is_fetched_key(uri) or master_url is None:
        return [line]
    url = urljoin(master_url, uri)
    return [_with_uri(line, local_path(master_url, url))] if url in stored_keys else []


def _with_uri(line, uri):
    """The tag `line` with its URI attribute set to `uri`."""
    return re.sub(r'(?<=[:,])URI="[^"]*"', lambda _: f'URI="{uri}"', line, count=1)


def _local_uri(master_url, base_url, uri, byterange=None):
    """`uri` (relative to `base_url`) as the package names it from the local copy of
    `base_url`: the path of its local file relative to that copy's directory. Unchanged
    without `master_url`."""
    if master_url is None:
        return uri
    here = posixpath.dirname(local_path(master_url, base_url)) if base_url != master_url else ""
    return posixpath.relpath(local_name(master_url, urljoin(base_url, uri), byterange), here or ".")


def parse_media(text):
    """The segments of a VOD media playlist: [{"uri", "key", "range", "map"}].

    `range` is the EXT-X-BYTERANGE as (offset, length), its offset made absolute (omitted,
    the range begins right after the previous segment's, which must be a range of the same
    URI: RFC 8216 §4.3.2.2), or None for the whole resource. `map` is the EXT-X-MAP in
    effect, {"uri", "range"} (a BYTERANGE's omitted offset is 0), until the next one.

    Several EXT-X-KEY tags may apply to a segment, one per KEYFORMAT (multi-DRM streams
    list FairPlay's `skd://` key beside Widevine and PlayReady ones): each segment gets
    the one this downloader supports, the `skd:` key, else the `identity` (AES-128) one
    ({"METHOD", "URI", "IV"…}), None when clear. A segment whose keys are all of other
    formats is a PlaylistError."""
    segments, keys, pending, byterange, init = [], {}, False, None, None
    lines = _lines(text)
    for line in lines:
        if line.startswith("#EXT-X-KEY:"):
            key = attributes(line.split(":", 1)[1])
            if key.get("METHOD") == "NONE":
                keys = {}
            else:
                keys = dict(keys)
                keys[key.get("KEYFORMAT", "identity")] = key
        elif line.startswith("#EXT-X-MAP:"):
            init = _init_section(line)
        elif line.startswith("#EXT-X-BYTERANGE:"):
            byterange = _length_offset(line.split(":", 1)[1], line)
        elif line.startswith("#EXTINF"):
            pending = True
        elif not line.startswith("#"):
            if not pending:
                raise PlaylistError(f"segment {line} has no #EXTINF")
            segments.append({"uri": line, "key": _supported_key(keys, line),
                             "range": _absolute(byterange, line, segments), "map": init})
            pending, byterange = False, None
    if "#EXT-X-ENDLIST" not in lines:
        raise PlaylistError("not a VOD playlist (no #EXT-X-ENDLIST): live streams cannot be downloaded")
    return segments


def _length_offset(text, line):
    """`n[@o]` → (n, o or None); a PlaylistError naming `line` for anything else or an empty range."""
    length, at, offset = text.strip().partition("@")
    if not length.isdigit() or (at and not offset.isdigit()):
        raise PlaylistError(f"{line}: not a byte range length[@offset]")
    if int(length) == 0:
        raise PlaylistError(f"{line}: an empty byte range")
    return int(length), int(offset) if offset else None


def _absolute(byterange, uri, segments):
    """The (offset, length) of a segment's EXT-X-BYTERANGE (length, offset or None), or None."""
    if byterange is None:
        return None
    length, offset = byterange
    if offset is None:
        previous = segments[-1] if segments else None
        if previous is None or previous["uri"] != uri or previous["range"] is None:
            raise PlaylistError(f"segment {uri}: EXT-X-BYTERANGE without an offset must follow a byte range "
                                "of the same URI")
        offset = previous["range"][0] + previous["range"][1]
    return offset, length


def _init_section(line):
    """An EXT-X-MAP `line` → {"uri", "range": (offset, length) or None}."""
    attrs = attributes(line.split(":", 1)[1])
    if not attrs.get("URI"):
        raise PlaylistError(f"{line}: EXT-X-MAP without a URI")
    byterange = _length_offset(attrs["BYTERANGE"], line) if "BYTERANGE" in attrs else None
    return {"uri": attrs["URI"], "range": (byterange[1] or 0, byterange[0]) if byterange else None}


def local_media(text, playlist_url, master_url):
    """The package's copy of the media playlist `text` (from `playlist_url`): each segment,
    init section and key file named by its local file (`local_name`), relative to the
    copy's own directory; no EXT-X-BYTERANGE, and no BYTERANGE in EXT-X-MAP (each range is
    a file of its own); a key of another format that needs a file (never fetched) left
    out. Every other line as it was: media sequence, IVs, discontinuities, durations."""
    segments = parse_media(text)
    stored_keys = {urljoin(playlist_url, s["key"]["URI"]) for s in segments
                   if s["key"] and is_fetched_key(s["key"].get("URI", ""))}
    remaining, out = iter(segments), []
    for line in _lines(text):
        if line.startswith("#EXT-X-BYTERANGE:"):
            continue
        if line.startswith("#EXT-X-MAP:"):
            init = _init_section(line)
            out.append(f'#EXT-X-MAP:URI="{_local_uri(master_url, playlist_url, init["uri"], init["range"])}"')
        elif line.startswith("#EXT-X-KEY:"):
            uri = attributes(line.split(":", 1)[1]).get("URI")
            if uri is None or not is_fetched_key(uri):
                out.append(line)
            elif urljoin(playlist_url, uri) in stored_keys:
                out.append(_with_uri(line, _local_uri(master_url, playlist_url, uri)))
        elif not line.startswith("#"):
            segment = next(remaining)
            out.append(_local_uri(master_url, playlist_url, segment["uri"], segment["range"]))
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _supported_key(keys, segment):
    """The key of `keys` (by KEYFORMAT) this downloader can use for `segment`, or None when clear."""
    if not keys:
        return None
    for key in keys.values():
        if urlsplit(key.get("URI", "")).scheme.lower() == "skd":
            return key
    if "identity" in keys:
        return keys["identity"]
    raise PlaylistError(f"segment {segment}: no supported key among the formats {sorted(keys)}")


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


def local_name(master_url, url, byterange=None):
    """Where a resource lives in the package: `local_path`, and for a byte range of it
    ((offset, length)) a file of its own beside it, named by its bytes
    (`v0/all.ts` 15040@15604 → `v0/all.bytes-15604-30643.ts`)."""
    path = local_path(master_url, url)
    if byterange is None:
        return path
    offset, length = byterange
    stem, extension = posixpath.splitext(path)
    return f"{stem}.bytes-{offset}-{offset + length - 1}{extension}"
