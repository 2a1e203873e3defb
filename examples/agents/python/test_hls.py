"""Unit tests of hls.py: run with `python3 -m unittest discover examples/agents/python`."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hls  # noqa: E402

MASTER = """#EXTM3U
#EXT-X-VERSION:4
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio_en/index.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="audio_fr/index.m3u8"
#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",DEFAULT=NO,AUTOSELECT=YES,URI="subs/de/index.m3u8"
#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="subs/en/index.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=1200000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aud",SUBTITLES="subs"
1200k/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=640x360,AUDIO="aud",SUBTITLES="subs"
400k/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2",AUDIO="aud"
audio/index.m3u8
"""

MEDIA = """#EXTM3U
#EXT-X-VERSION:4
#EXT-X-TARGETDURATION:6
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-KEY:METHOD=AES-128,URI="../key",IV=0x00000000000000000000000000000000
#EXTINF:6.0,
seg0.ts
#EXT-X-KEY:METHOD=AES-128,URI="skd://protected/k1",IV=0x00000000000000000000000000000001,KEYFORMAT="com.apple.streamingkeydelivery"
#EXTINF:6.0,
seg1.ts
#EXT-X-KEY:METHOD=NONE
#EXTINF:2.5,
seg2.ts
#EXT-X-ENDLIST
"""


class AttributeTests(unittest.TestCase):
    def test_quoted_values_keep_their_commas(self):
        self.assertEqual(hls.attributes('A=1,CODECS="avc1,mp4a",B=x'), {"A": "1", "CODECS": "avc1,mp4a", "B": "x"})


class MasterTests(unittest.TestCase):
    def setUp(self):
        self.master = hls.parse_master(MASTER)

    def test_parses_variants_and_renditions(self):
        self.assertEqual([v["uri"] for v in self.master["variants"]], ["1200k/index.m3u8", "400k/index.m3u8",
                                                                      "audio/index.m3u8"])
        self.assertEqual(len(self.master["renditions"]), 4)

    def test_audio_only_variant_has_no_video(self):
        self.assertFalse(hls.has_video(self.master["variants"][2]))
        self.assertTrue(hls.has_video(self.master["variants"][1]))

    def test_default_selection_is_lowest_video_variant_and_default_renditions(self):
        chosen = hls.select(self.master)
        self.assertEqual([(c["selection"], c["uri"]) for c in chosen], [
            ("video", "400k/index.m3u8"), ("audio_en", "audio_en/index.m3u8"), ("subs_en", "subs/en/index.m3u8")])

    def test_languages_asked_for_are_chosen_in_order(self):
        chosen = hls.select(self.master, ["fr", "EN"], ["de"])
        self.assertEqual([c["selection"] for c in chosen], ["video", "audio_fr", "audio_en", "subs_de"])

    def test_unknown_language_is_refused(self):
        with self.assertRaises(hls.PlaylistError):
            hls.select(self.master, ["ja"])

    def test_package_master_names_only_what_was_chosen(self):
        text = hls.package_master(self.master, hls.select(self.master, ["fr"], []))
        self.assertIn("400k/index.m3u8", text)
        self.assertIn('URI="audio_fr/index.m3u8"', text)
        self.assertIn('URI="subs/en/index.m3u8"', text)
        for absent in ("1200k/index.m3u8", "audio/index.m3u8", "audio_en/", "subs/de/"):
            self.assertNotIn(absent, text)
        again = hls.parse_master(text)
        self.assertEqual(len(again["variants"]), 1)

    def test_not_a_playlist(self):
        with self.assertRaises(hls.PlaylistError):
            hls.parse_master("<html>")


class MediaTests(unittest.TestCase):
    def test_segments_carry_the_key_in_effect(self):
        segments = hls.parse_media(MEDIA)
        self.assertEqual([s["uri"] for s in segments], ["seg0.ts", "seg1.ts", "seg2.ts"])
        self.assertEqual(segments[0]["key"]["URI"], "../key")
        self.assertEqual(segments[1]["key"]["KEYFORMAT"], "com.apple.streamingkeydelivery")
        self.assertIsNone(segments[2]["key"])

    def test_live_playlist_is_refused(self):
        with self.assertRaises(hls.PlaylistError):
            hls.parse_media(MEDIA.replace("#EXT-X-ENDLIST\n", ""))

    def test_which_keys_are_files(self):
        self.assertTrue(hls.is_fetched_key("../key"))
        self.assertFalse(hls.is_fetched_key("skd://protected/k1"))
        self.assertFalse(hls.is_fetched_key("data:text/plain;base64,AAAA"))

    def test_local_paths_mirror_the_origin_below_the_master(self):
        master = "http://127.0.0.1:8080/videos/clear/master.m3u8"
        self.assertEqual(hls.local_path(master, "http://127.0.0.1:8080/videos/clear/400k/seg3.ts"), "400k/seg3.ts")
        self.assertEqual(hls.local_path(master, "http://127.0.0.1:8080/videos/clear/key"), "key")
        with self.assertRaises(hls.PlaylistError):
            hls.local_path(master, "http://127.0.0.1:8080/videos/other/key")
        with self.assertRaises(hls.PlaylistError):
            hls.local_path(master, "http://cdn.example/videos/clear/400k/seg3.ts")


class MultiKeyTests(unittest.TestCase):
    PLAYLIST = """#EXTM3U
#EXT-X-VERSION:5
#EXT-X-TARGETDURATION:6
#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://multi-drm/k1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,AAAA",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
#EXTINF:6.0,
seg0.ts
#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,BBBB",KEYFORMAT="com.microsoft.playready"
#EXTINF:6.0,
seg1.ts
#EXT-X-KEY:METHOD=NONE
#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,CCCC",KEYFORMAT="com.microsoft.playready"
#EXTINF:6.0,
seg2.ts
#EXT-X-ENDLIST
"""

    def test_the_skd_key_is_chosen_whatever_its_place(self):
        head, tail = self.PLAYLIST.split("#EXTINF:6.0,\nseg1.ts\n")[0], "#EXTINF:6.0,\nseg1.ts\n#EXT-X-ENDLIST\n"
        segments = hls.parse_media(head + tail)
        self.assertEqual([s["key"]["URI"] for s in segments], ["skd://multi-drm/k1", "skd://multi-drm/k1"])
        reordered = self.PLAYLIST.split("#EXTINF")[0].splitlines()
        reordered = "\n".join(reordered[:3] + [reordered[4], reordered[3]]) + "\n#EXTINF:6.0,\nseg0.ts\n#EXT-X-ENDLIST\n"
        self.assertEqual(hls.parse_media(reordered)[0]["key"]["URI"], "skd://multi-drm/k1")

    def test_only_foreign_keys_is_an_error_naming_the_formats(self):
        with self.assertRaises(hls.PlaylistError) as raised:
            hls.parse_media(self.PLAYLIST)
        self.assertIn("com.microsoft.playready", str(raised.exception))
        self.assertIn("seg2.ts", str(raised.exception))


class ByteRangeAndMapTests(unittest.TestCase):
    """EXT-X-BYTERANGE (RFC 8216 §4.3.2.2) and EXT-X-MAP (§4.3.2.5)."""

    PLAYLIST = """#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:2
#EXT-X-PLAYLIST-TYPE:VOD
#EXTINF:2.0,
intro.ts
#EXT-X-MAP:URI="main.mp4",BYTERANGE="720"
#EXTINF:2.0,
#EXT-X-BYTERANGE:1000@720
main.mp4
#EXTINF:2.0,
#EXT-X-BYTERANGE:1500
main.mp4
#EXTINF:2.0,
#EXT-X-BYTERANGE:800
main.mp4
#EXT-X-DISCONTINUITY
#EXT-X-MAP:URI="/videos/s/v0/other-init.mp4"
#EXT-X-KEY:METHOD=AES-128,URI="/videos/s/key1.bin",IV=0x0000000000000000000000000000000a
#EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://drm.example/widevine",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
#EXTINF:2.0,
#EXT-X-BYTERANGE:500@0
other.m4s
#EXTINF:2.0,
http://127.0.0.1:9/videos/s/v0/last.m4s
#EXT-X-ENDLIST
"""
    MASTER_URL = "http://127.0.0.1:9/videos/s/master.m3u8"
    PLAYLIST_URL = "http://127.0.0.1:9/videos/s/v0/index.m3u8"

    def test_omitted_offsets_continue_after_the_previous_range_of_the_same_uri(self):
        segments = hls.parse_media(self.PLAYLIST)
        self.assertEqual([s["range"] for s in segments], [None, (720, 1000), (1720, 1500), (3220, 800), (0, 500), None])

    def test_an_init_section_applies_until_the_next_one(self):
        segments = hls.parse_media(self.PLAYLIST)
        self.assertIsNone(segments[0]["map"])
        self.assertEqual([s["map"] for s in segments[1:4]], [{"uri": "main.mp4", "range": (0, 720)}] * 3)
        self.assertEqual([s["map"] for s in segments[4:]], [{"uri": "/videos/s/v0/other-init.mp4", "range": None}] * 2)

    def test_an_omitted_offset_needs_a_previous_range_of_the_same_uri(self):
        head = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        for body in ("#EXTINF:2,\n#EXT-X-BYTERANGE:10\na.ts\n",  # no previous segment
                     "#EXTINF:2,\na.ts\n#EXTINF:2,\n#EXT-X-BYTERANGE:10\na.ts\n",  # the previous one is whole
                     "#EXTINF:2,\n#EXT-X-BYTERANGE:10@0\nb.ts\n#EXTINF:2,\n#EXT-X-BYTERANGE:10\na.ts\n"):
            with self.subTest(body=body), self.assertRaises(hls.PlaylistError):
                hls.parse_media(head + body + "#EXT-X-ENDLIST\n")

    def test_malformed_and_empty_ranges_are_refused(self):
        for value in ("x", "10@", "@5", "0@10", "-1"):
            with self.subTest(value=value), self.assertRaises(hls.PlaylistError):
                hls.parse_media(f"#EXTM3U\n#EXTINF:2,\n#EXT-X-BYTERANGE:{value}\na.ts\n#EXT-X-ENDLIST\n")

    def test_a_byte_range_is_a_local_file_named_by_its_bytes(self):
        self.assertEqual(hls.local_name(self.MASTER_URL, "http://127.0.0.1:9/videos/s/v0/all.ts", (15604, 15040)),
                         "v0/all.bytes-15604-30643.ts")
        self.assertEqual(hls.local_name(self.MASTER_URL, "http://127.0.0.1:9/videos/s/v0/all.ts"), "v0/all.ts")

    def test_the_local_playlist_names_local_files_without_byte_ranges(self):
        text = hls.local_media(self.PLAYLIST, self.PLAYLIST_URL, self.MASTER_URL)
        self.assertEqual(text.splitlines(), [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:2.0,", "intro.ts",
            '#EXT-X-MAP:URI="main.bytes-0-719.mp4"',
            "#EXTINF:2.0,", "main.bytes-720-1719.mp4",
            "#EXTINF:2.0,", "main.bytes-1720-3219.mp4",
            "#EXTINF:2.0,", "main.bytes-3220-4019.mp4",
            "#EXT-X-DISCONTINUITY",
            '#EXT-X-MAP:URI="other-init.mp4"',
            # the key stored as ../key1.bin, its IV kept; the Widevine key (never fetched) left out
            '#EXT-X-KEY:METHOD=AES-128,URI="../key1.bin",IV=0x0000000000000000000000000000000a',
            "#EXTINF:2.0,", "other.bytes-0-499.m4s",
            "#EXTINF:2.0,", "last.m4s",
            "#EXT-X-ENDLIST"])

    def test_a_playlist_without_ranges_or_maps_is_kept_as_it_was(self):
        url = "http://127.0.0.1:8080/videos/clear/400k/index.m3u8"
        text = hls.local_media(MEDIA, url, "http://127.0.0.1:8080/videos/clear/master.m3u8")
        self.assertEqual(text.splitlines(), [line for line in MEDIA.splitlines() if line])


class PackageMasterTests(unittest.TestCase):
    MASTER = """#EXTM3U
#EXT-X-VERSION:6
#EXT-X-SESSION-KEY:METHOD=AES-128,URI="v0/key0.bin"
#EXT-X-SESSION-KEY:METHOD=AES-128,URI="unused.bin"
#EXT-X-SESSION-DATA:DATA-ID="com.example.info",URI="info.json"
#EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Pilot"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="French",LANGUAGE="fr",URI="a/fr.m3u8"
#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English",INSTREAM-ID="CC1"
#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="angles",NAME="Side",URI="side/index.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,AUDIO="aud",CLOSED-CAPTIONS="cc",VIDEO="angles",SUBTITLES="gone"
http://127.0.0.1:9/videos/s/v0/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720,AUDIO="aud"
v1/index.m3u8
#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=40000,RESOLUTION=640x360,URI="iframe/index.m3u8"
"""
    MASTER_URL = "http://127.0.0.1:9/videos/s/master.m3u8"

    def package(self):
        master = hls.parse_master(self.MASTER)
        return hls.package_master(master, hls.select(master), self.MASTER_URL,
                                  {"http://127.0.0.1:9/videos/s/v0/key0.bin"})

    def test_every_group_the_variant_names_is_defined_by_a_kept_rendition(self):
        again = hls.parse_master(self.package())
        [variant] = again["variants"]
        defined = {(r["attrs"]["TYPE"], r["attrs"]["GROUP-ID"]) for r in again["renditions"]}
        for name in hls.GROUP_TYPES:
            if name in variant["attrs"]:
                self.assertIn((name, variant["attrs"][name]), defined)
        self.assertEqual((variant["attrs"].get("AUDIO"), variant["attrs"].get("CLOSED-CAPTIONS")), ("aud", "cc"))
        self.assertNotIn("VIDEO", variant["attrs"])  # the alternate angle is not downloaded
        self.assertNotIn("SUBTITLES", variant["attrs"])  # a group the origin's master never defined

    def test_uris_are_local_and_iframes_unused_keys_and_remote_data_are_dropped(self):
        text = self.package()
        self.assertIn("\nv0/index.m3u8\n", text)  # an absolute URL, as its local path
        self.assertIn('#EXT-X-SESSION-KEY:METHOD=AES-128,URI="v0/key0.bin"', text)
        self.assertIn('VALUE="Pilot"', text)
        for absent in ("unused.bin", "info.json", "I-FRAME", "iframe/", "v1/", "a/fr.m3u8", "side/"):
            self.assertNotIn(absent, text)


if __name__ == "__main__":
    unittest.main()
