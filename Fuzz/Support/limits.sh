# shellcheck shell=bash
# Sourced by every Fuzz/run*.sh script.
#
# How long one input may run before libFuzzer calls it a hang. An input takes
# milliseconds; 60 s tells a hang (which never ends) from an input slowed by
# a busy machine. (The two whole-path "timeouts" CI found were a real
# deadlock, since fixed: see "A finding in CI" in Fuzz/README.md.)
# shellcheck disable=SC2034 # used by the scripts that source this
UNIT_TIMEOUT=${FUZZ_UNIT_TIMEOUT:-60}
