# shellcheck shell=bash
# Sourced by every Fuzz/run*.sh script.
#
# How long one input may run before libFuzzer calls it a hang. An input takes
# milliseconds; 60 s tells a hang (which never ends) from an input slowed by
# a busy machine (CI once saw a 13 ms whole-path input take 14 s beside
# emulated boards and builds, when the limit was 10 s).
# shellcheck disable=SC2034 # used by the scripts that source this
UNIT_TIMEOUT=${FUZZ_UNIT_TIMEOUT:-60}
