# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source it
# The pins and the path of the test venv, sourced by Tests/homeassistant/run.sh
# (which builds it) and Tests/web/run.sh (which uses its Selenium): one place,
# so a new pin cannot leave the web test looking for a venv nobody builds.
HA_VERSION=2024.3.3
# What drives Chromium for the device page's screenshot and the web
# interface's test (its pip package works with urllib3<2, which HA pins).
SELENIUM_VERSION=4.27.1
CACHE=${CAST_GATEWAY_CACHE:-/var/cache/cast-gateway}
# Named after its pins: a checkout with other pins (another branch, an older
# run) keeps a venv of its own instead of rebuilding this one.
VENV=$CACHE/ha-venv-$HA_VERSION-selenium-$SELENIUM_VERSION
