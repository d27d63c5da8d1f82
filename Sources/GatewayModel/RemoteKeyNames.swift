/// The key names keymaps may use.
public enum RemoteKeyNames {
    /// libcec's user-control code names (CEC_USER_CONTROL_CODE_*, without the prefix).
    public static let cec: Set<String> = Set([
        "SELECT", "UP", "DOWN", "LEFT", "RIGHT", "RIGHT_UP", "RIGHT_DOWN", "LEFT_UP", "LEFT_DOWN", "ROOT_MENU",
        "SETUP_MENU", "CONTENTS_MENU", "FAVORITE_MENU", "EXIT", "TOP_MENU", "DVD_MENU", "NUMBER_ENTRY_MODE",
        "NUMBER11", "NUMBER12", "DOT", "ENTER", "CLEAR", "NEXT_FAVORITE", "CHANNEL_UP", "CHANNEL_DOWN",
        "PREVIOUS_CHANNEL", "SOUND_SELECT", "INPUT_SELECT", "DISPLAY_INFORMATION", "HELP", "PAGE_UP", "PAGE_DOWN",
        "POWER", "VOLUME_UP", "VOLUME_DOWN", "MUTE", "PLAY", "STOP", "PAUSE", "RECORD", "REWIND", "FAST_FORWARD",
        "EJECT", "FORWARD", "BACKWARD", "STOP_RECORD", "PAUSE_RECORD", "ANGLE", "SUB_PICTURE", "VIDEO_ON_DEMAND",
        "ELECTRONIC_PROGRAM_GUIDE", "TIMER_PROGRAMMING", "INITIAL_CONFIGURATION", "SELECT_BROADCAST_TYPE",
        "SELECT_SOUND_PRESENTATION", "PLAY_FUNCTION", "PAUSE_PLAY_FUNCTION", "RECORD_FUNCTION",
        "PAUSE_RECORD_FUNCTION", "STOP_FUNCTION", "MUTE_FUNCTION", "RESTORE_VOLUME_FUNCTION", "TUNE_FUNCTION",
        "SELECT_MEDIA_FUNCTION", "SELECT_AV_INPUT_FUNCTION", "SELECT_AUDIO_INPUT_FUNCTION", "POWER_TOGGLE_FUNCTION",
        "POWER_OFF_FUNCTION", "POWER_ON_FUNCTION", "F1_BLUE", "F2_RED", "F3_GREEN", "F4_YELLOW", "F5", "DATA",
        "AN_RETURN", "AN_CHANNELS_LIST",
    ] + (0...9).map { "NUMBER\($0)" } + (0...255).map { vendorKey(UInt8($0)) })

    /// A TV vendor's own remote key code (<Vendor Remote Button Down>), e.g. `VENDOR_91`.
    public static func vendorKey(_ code: UInt8) -> String {
        let hex = String(code, radix: 16, uppercase: true)
        return "VENDOR_" + (hex.count == 1 ? "0" + hex : hex)
    }

    /// Linux input key names that TV and media remotes produce (LIRC's
    /// devinput remote and evdev use these).
    public static let linuxInput: Set<String> = Set([
        "KEY_PLAY", "KEY_PAUSE", "KEY_PLAYPAUSE", "KEY_PLAYCD", "KEY_PAUSECD", "KEY_STOP", "KEY_STOPCD",
        "KEY_RECORD", "KEY_REWIND", "KEY_FASTFORWARD", "KEY_FORWARD", "KEY_BACK", "KEY_NEXTSONG", "KEY_PREVIOUSSONG",
        "KEY_NEXT", "KEY_PREVIOUS", "KEY_VOLUMEUP", "KEY_VOLUMEDOWN", "KEY_MUTE", "KEY_CHANNELUP", "KEY_CHANNELDOWN",
        "KEY_UP", "KEY_DOWN", "KEY_LEFT", "KEY_RIGHT", "KEY_OK", "KEY_ENTER", "KEY_SELECT", "KEY_EXIT", "KEY_ESC",
        "KEY_HOME", "KEY_MENU", "KEY_INFO", "KEY_EPG", "KEY_GUIDE", "KEY_POWER", "KEY_POWER2", "KEY_SLEEP",
        "KEY_WAKEUP", "KEY_SUBTITLE", "KEY_LANGUAGE", "KEY_AUDIO", "KEY_VIDEO", "KEY_TV", "KEY_RADIO", "KEY_TEXT",
        "KEY_RED", "KEY_GREEN", "KEY_YELLOW", "KEY_BLUE", "KEY_FAVORITES", "KEY_LIST", "KEY_MEDIA", "KEY_EJECTCD",
        "KEY_SHUFFLE", "KEY_ZOOM", "KEY_SCREEN", "KEY_ANGLE", "KEY_TITLE", "KEY_DVD", "KEY_CONTEXT_MENU",
        "KEY_PROGRAM", "KEY_LAST", "KEY_AGAIN", "KEY_CLEAR", "KEY_SETUP", "KEY_CONFIG", "KEY_SOUND", "KEY_MODE",
        "KEY_SWITCHVIDEOMODE", "KEY_BRIGHTNESSUP", "KEY_BRIGHTNESSDOWN", "KEY_FRAMEBACK", "KEY_FRAMEFORWARD",
        "KEY_SPACE", "KEY_BACKSPACE", "KEY_TAB", "KEY_PAGEUP", "KEY_PAGEDOWN", "KEY_HELP", "KEY_OPTION",
    ] + (0...9).map { "KEY_\($0)" } + (0...9).map { "KEY_NUMERIC_\($0)" } + (1...12).map { "KEY_F\($0)" })
}
