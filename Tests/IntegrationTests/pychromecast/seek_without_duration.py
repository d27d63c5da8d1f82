"""Issue 9 §6: pychromecast loads media without a duration, then seeks.

Usage: python seek_without_duration.py PORT
Prints one JSON object per step. pychromecast 14's play_media defaults to
stream_type="LIVE", so the BUFFERED load names its stream type; the LIVE
load uses the default and must stay unseekable.
"""
import sys

from loopback_cast import connect, report, wait_for

PORT = int(sys.argv[1])




cast = connect(PORT)
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
