let usage = """
    usage: cast-gateway COMMAND [OPTIONS]

    Commands:
      run [--config FILE]          run the daemon (default config /etc/cast-gateway/gateway.conf)
      demo                         try it with no hardware: a simulated TV and a command prompt
      cast URL --device HOST[:PORT] [--title T] [--content-type T] [--subtitles URL]
               [--app-id ID] [--android-receiver] [--credentials S] [--credentials-type T]
                                   play URL on the device now, then exit
      control ACTION --device HOST[:PORT]
                                   ACTION: play | pause | toggle | stop | next | prev |
                                   seek SECONDS|+S|-S | volume 0-100|+N|-N | mute
      discover [--timeout S] [--json]
                                   list the Cast devices on the network (mDNS, via avahi-daemon)
      check-config FILE            validate a config file
      --help, --version

    Exit codes: 0 ok, 1 the device refused, 64 usage error, 69 device unavailable, 78 config error.
    Logs go to standard error (journald reads their level); set the level with --log-level
    or [log] level.
    """
