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


if __name__ == "__main__":
    unittest.main()
