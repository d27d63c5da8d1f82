let usage = """
    usage: cast-gateway COMMAND [OPTIONS]

    Commands:
      run [--config FILE] [--board NAME]
                                   run the daemon (default config /etc/cast-gateway/gateway.conf);
                                   --board applies a board profile beneath the file's values
      demo                         try it with no hardware: a simulated TV and a command prompt
      cast URL --device HOST[:PORT] [--title T] [--content-type T] [--subtitles URL]
               [--app-id ID] [--android-receiver] [--credentials-file FILE|-] [--credentials-type T]
               [--media-credentials-file FILE|-] [--media-credentials-type T]
                                   play URL on the device now, then exit. Give secrets with
                                   --credentials-file (- reads standard input): --credentials S
                                   also works, but every local user can read it in /proc
      control ACTION --device HOST[:PORT]
                                   ACTION: play | pause | toggle | stop | next | prev |
                                   seek SECONDS|+S|-S|mm:ss|h:mm:ss | volume 0-100|+N|-N | mute
      discover [--timeout S] [--json]
                                   list the Cast devices on the network (mDNS, via avahi-daemon)
      check-config FILE [--board NAME]
                                   validate a config file (with a board profile's defaults)
      boards                       list the installed board profiles
      web-password PATH            read the web interface's password (one line) from standard input
                                   and write its salted hash to PATH (mode 0600)
      --help, --version

    Exit codes: 0 ok, 1 the device refused, 64 usage error, 69 device unavailable, 78 config error.
    Logs go to standard error (journald reads their level); set the level with --log-level
    or [log] level.
    """
