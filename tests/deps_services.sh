#!/usr/bin/env bash
# scripts/deps.sh leaves no service enabled at boot that was not enabled
# before it ran (scripts/lib/services.sh): on a root of its own
# (systemctl --root), with one unit enabled before an "installation" and
# two it enables (as Debian's postinst of influxdb, carbon-cache or
# prometheus does, policy-rc.d or not), services_restore disables the two
# and keeps the first, and says which it disabled.  scripts/deps.sh calls
# it around its install, and ./test.sh --what says what a run installs.
. "$(dirname "$0")/lib/common.sh"
need "systemctl" -- command -v systemctl
. "$top_srcdir/scripts/lib/services.sh"
root="$T/root"
mkdir -p "$root/etc/systemd/system" "$root/usr/lib/systemd/system"
for u in jc-kept jc-new-a jc-new-b; do
  printf '[Unit]\nDescription=%s\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n' "$u" \
    >"$root/usr/lib/systemd/system/$u.service"
done
export SERVICES_ROOT=$root
systemctl --root="$root" enable jc-kept.service >/dev/null 2>&1
before=$(services_enabled)
echo "$before" | grep -qx jc-kept.service
ok $? "services_enabled lists the unit enabled before: $(echo $before)"
systemctl --root="$root" enable jc-new-a.service jc-new-b.service >/dev/null 2>&1
services_enabled | grep -qx jc-new-a.service
ok $? "the installation enabled two more"
services_restore "$before" 2>"$T/said"
now=$(services_enabled)
[ "$now" = "$before" ]
ok $? "services_restore: enabled now is what was before ($(echo $now))"
grep -q 'disabling at boot what the installation enabled: jc-new-a.service jc-new-b.service' "$T/said"
ok $? "it says which it disabled: $(cat "$T/said")"
services_restore "$before" 2>"$T/said2"
[ ! -s "$T/said2" ] && [ "$(services_enabled)" = "$before" ]
ok $? "run again, it changes and says nothing"
unset SERVICES_ROOT
grep -q 'services_restore "$enabled_before"' "$top_srcdir/scripts/deps.sh" &&
  grep -q 'enabled_before=$(services_enabled)' "$top_srcdir/scripts/deps.sh"
ok $? "scripts/deps.sh records what is enabled before it installs and restores it after"
"$top_srcdir/test.sh" --what 2>&1 | grep -q '/boot'
ok $? "./test.sh --what says up front what it installs and changes (kernels in /boot among them)"
tap_done
