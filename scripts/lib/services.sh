# shellcheck shell=bash
# services.sh - what an installation enables at boot, undone.  Sourced by
# scripts/deps.sh; tests/deps_services.sh checks it on units of its own.
#
#   before=$(services_enabled)     # the unit files enabled now
#   ... apt-get install ...
#   services_restore "$before"     # disables those enabled since, says which
#
# Works with or without a running systemd (systemctl reads the unit files'
# symlinks); without systemctl there is nothing to do.  SERVICES_ROOT
# (default /) is the root systemctl works on (--root), for the test.

services__ctl() {
	if [ -n "${SERVICES_ROOT:-}" ] && [ "$SERVICES_ROOT" != / ]; then
		systemctl --root="$SERVICES_ROOT" "$@"
	else
		systemctl "$@"
	fi
}

# services_enabled: the unit files enabled at boot, one per line, sorted.
services_enabled() {
	command -v systemctl >/dev/null 2>&1 || return 0
	services__ctl list-unit-files --state=enabled --no-legend --no-pager 2>/dev/null |
		awk '{ print $1 }' | LC_ALL=C sort
}

# services_restore BEFORE: disable every unit enabled now that BEFORE (a
# services_enabled list) did not have; one line on stderr names them.
services_restore() {
	command -v systemctl >/dev/null 2>&1 || return 0
	local now added
	now=$(services_enabled)
	added=$(LC_ALL=C comm -13 <(printf '%s\n' "$1" | grep .) <(printf '%s\n' "$now" | grep .))
	[ -n "$added" ] || return 0
	echo "disabling at boot what the installation enabled: $(echo $added)" >&2
	# shellcheck disable=SC2086
	services__ctl disable --no-reload $added >/dev/null 2>&1 ||
		services__ctl disable $added >/dev/null 2>&1 || true
}
