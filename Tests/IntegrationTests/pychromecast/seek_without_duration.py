"""Issue 9 §6: pychromecast loads media without a duration, then seeks.

Usage: python seek_without_duration.py PORT
Prints one JSON object per step. pychromecast 14's play_media defaults to
stream_type="LIVE", so the BUFFERED load names its stream type; the LIVE
load uses the default and must stay unseekable.
"""
import json
import sys
import time
import uuid

import pychromecast
from pychromecast.models import CastInfo, HostServiceInfo

PORT = int(sys.argv[1])


def report(step, **values):
    print(json.dumps({"step": step, **values}), flush=True)


def wait_for(predicate, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


info = CastInfo({HostServiceInfo("127.0.0.1", PORT)}, uuid.uuid4(), "Chromecast", "Simulator",
                "127.0.0.1", PORT, "cast", "Google Inc.")
cast = pychromecast.get_chromecast_from_cast_info(info, zconf=None, tries=1, timeout=10)
cast.wait(timeout=10)
media = cast.media_controller

media.play_media("http://media.test/no-duration.mp4", "video/mp4", stream_type="BUFFERED")
media.block_until_active(timeout=10)
wait_for(lambda: media.status.player_state == "PLAYING" and media.status.duration is not None)
report("buffered", duration=media.status.duration, supports_seek=media.status.supports_seek)
media.seek(12)
wait_for(lambda: media.status.current_time >= 12)
report("seeked", current_time=media.status.current_time)

media.play_media("http://media.test/live.m3u8", "application/x-mpegurl")
wait_for(lambda: media.status.stream_type == "LIVE" and media.status.player_state == "PLAYING")
report("live", stream_type=media.status.stream_type, duration=media.status.duration,
       supports_seek=media.status.supports_seek)

cast.disconnect(timeout=5)
report("done")
