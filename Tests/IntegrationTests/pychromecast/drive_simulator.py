"""Drives cast-receiver-sim with pychromecast, a third-party Cast sender.

Usage: python drive_simulator.py PORT
Prints one JSON object per step ({"step": ..., ...observed values}) and exits
non-zero when a step fails, so the calling test can assert on each value.
"""
import sys

from loopback_cast import connect, report, wait_for

PORT = int(sys.argv[1])
DEFAULT_MEDIA_RECEIVER = "CC1AD845"




cast = connect(PORT)
report("connected", app_id=cast.status.app_id, volume=cast.status.volume_level)

cast.start_app(DEFAULT_MEDIA_RECEIVER)
wait_for(lambda: cast.status.app_id == DEFAULT_MEDIA_RECEIVER)
report("launched", app_id=cast.status.app_id, display_name=cast.status.display_name)

media = cast.media_controller
media.play_media("http://media.test/bbb.mp4", "video/mp4", title="Big Buck Bunny", stream_type="BUFFERED")
media.block_until_active(timeout=10)
wait_for(lambda: media.status.player_state == "PLAYING")
report("playing", player_state=media.status.player_state, title=media.status.title,
       duration=media.status.duration, content_id=media.status.content_id)

media.pause()
wait_for(lambda: media.status.player_state == "PAUSED")
report("paused", player_state=media.status.player_state)

media.play()
wait_for(lambda: media.status.player_state == "PLAYING")
report("resumed", player_state=media.status.player_state)

media.seek(100)
wait_for(lambda: media.status.current_time >= 100)
report("seeked", current_time=media.status.current_time)

cast.set_volume(0.3)
wait_for(lambda: abs((cast.status.volume_level or 0) - 0.3) < 0.001)
report("volume", volume=cast.status.volume_level)

cast.quit_app()
wait_for(lambda: cast.status.app_id != DEFAULT_MEDIA_RECEIVER)
report("quit", app_id=cast.status.app_id)

cast.disconnect(timeout=5)
report("done")
