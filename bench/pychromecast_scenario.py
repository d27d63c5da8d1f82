"""The bench scenario (connect, launch, load, pause) with pychromecast.
Prints: scenario seconds=S rss_kb=K"""
import sys
import time
import uuid

start = time.monotonic()
import pychromecast  # noqa: E402  (import time is part of the sender's start-up)
from pychromecast.models import CastInfo, HostServiceInfo  # noqa: E402

port = int(sys.argv[1])
info = CastInfo({HostServiceInfo("127.0.0.1", port)}, uuid.uuid4(), "Chromecast", "Sim", "127.0.0.1", port, "cast", "Google Inc.")
cast = pychromecast.get_chromecast_from_cast_info(info, zconf=None, tries=1, timeout=10)
cast.wait(timeout=10)
media = cast.media_controller
media.play_media("http://media.test/bench.mp4", "video/mp4", title="Bench", stream_type="BUFFERED")
media.block_until_active(timeout=10)
while media.status.player_state != "PLAYING":
    time.sleep(0.001)
media.pause()
while media.status.player_state != "PAUSED":
    time.sleep(0.001)
elapsed = time.monotonic() - start
rss = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:"))
print(f"scenario seconds={elapsed:.3f} rss_kb={rss}")
cast.disconnect(timeout=5)
