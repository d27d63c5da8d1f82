"""A hotel guest's phone, played by pychromecast: casts a URL, or stops the app.

Usage: python guest.py PORT play URL | python guest.py PORT quit
Prints one JSON line with what it saw and exits non-zero when it failed.
"""
import json
import sys

from loopback_cast import connect, wait_for

PORT, ACTION = int(sys.argv[1]), sys.argv[2]



cast = connect(PORT)
if ACTION == "play":
    url = sys.argv[3]
    controller = cast.media_controller
    controller.play_media(url, "video/mp4", title="Guest video", stream_type="BUFFERED")
    ok = wait_for(lambda: controller.status.content_id == url and controller.status.player_state == "PLAYING")
    print(json.dumps({"action": "play", "ok": ok, "content_id": controller.status.content_id}), flush=True)
else:
    # The box may relaunch its own loop at once, so success is the STOP sent,
    # not an empty screen afterwards.
    session = cast.status.session_id
    cast.quit_app()
    ok = wait_for(lambda: cast.status.session_id != session)
    print(json.dumps({"action": "quit", "ok": ok, "app_id": cast.status.app_id}), flush=True)
cast.disconnect(timeout=5)
sys.exit(0 if ok else 1)
