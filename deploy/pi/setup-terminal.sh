#!/usr/bin/env bash
# Turn Raspberry Pi OS Lite (Bookworm or later) into a Traveller table terminal (a kiosk).
#
#   sudo ./setup-terminal.sh                      find the server by mDNS at every start
#   sudo ./setup-terminal.sh --server http://192.168.1.10:8000    a fixed server URL
#   sudo ./setup-terminal.sh --ntp 192.168.1.10  take the time from the club server
#   sudo ./setup-terminal.sh --spec ./traveller-0.1.0-py3-none-any.whl   a local wheel
#   sudo ./setup-terminal.sh --font-size 16x32   a bigger console font (large displays)
#
# Afterwards the Pi logs in on tty1 by itself as user "traveller", runs `traveller terminal`
# full-screen and restarts it if it ever exits. Entries not yet sent wait in the outbox on
# the SD card (/var/lib/traveller-terminal), so a power cut or a server restart loses nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
user=traveller
state=/var/lib/traveller-terminal
prefix=/opt/traveller
spec="traveller[terminal]"
extra_pip="zeroconf"
server=auto
ntp=""
font_size=8x16

usage() {
    sed -n '2,12s/^# \{0,1\}//p' "$0"
    exit "${1:-0}"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --server) server=$2; shift 2 ;;
        --ntp) ntp=$2; shift 2 ;;
        --spec) spec=$2; shift 2 ;;
        --font-size) font_size=$2; shift 2 ;;
        -h|--help) usage 0 ;;
        *) echo "unknown option: $1" >&2; usage 2 ;;
    esac
done

if [ "$(id -u)" -ne 0 ]; then
    echo "run me with sudo" >&2
    exit 1
fi

echo "==> packages"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv console-setup

echo "==> user $user and the outbox folder $state"
if ! id "$user" >/dev/null 2>&1; then
    useradd --create-home --user-group --shell /bin/bash "$user"
fi
# dialout: a keypad on the Pi's own serial port; video/input: the console and a USB keypad.
for group in dialout video input tty; do
    if getent group "$group" >/dev/null; then usermod -a -G "$group" "$user"; fi
done
install -d -o "$user" -g "$user" -m 0750 "$state"

echo "==> Traveller into $prefix/venv"
[ -x "$prefix/venv/bin/python" ] || python3 -m venv "$prefix/venv"
"$prefix/venv/bin/pip" install --quiet --upgrade pip
# shellcheck disable=SC2086  # extra_pip is a list of package names
"$prefix/venv/bin/pip" install --quiet --upgrade "$spec" $extra_pip
ln -sf "$prefix/venv/bin/traveller" /usr/local/bin/traveller
install -m 0755 "$here/traveller-kiosk" /usr/local/bin/traveller-kiosk

echo "==> kiosk settings in /etc/traveller/terminal.env"
install -d -m 0755 /etc/traveller
cat > /etc/traveller/terminal.env <<CONF
# Read by traveller-kiosk. TRAVELLER_SERVER: a URL, or "auto" to find the server by mDNS.
TRAVELLER_SERVER=$server
TRAVELLER_STATE_DIR=$state
CONF
chmod 0644 /etc/traveller/terminal.env

echo "==> autologin on tty1, then the kiosk"
install -d /etc/systemd/system/getty@tty1.service.d
cat > /etc/systemd/system/getty@tty1.service.d/traveller-autologin.conf <<CONF
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin $user --noclear %I \$TERM
CONF
profile="/home/$user/.bash_profile"
cat > "$profile" <<'CONF'
# Traveller kiosk: on the Pi's own screen (tty1) run the terminal; an ssh login gets a shell.
if [ "$(tty)" = /dev/tty1 ]; then
    exec /usr/local/bin/traveller-kiosk
fi
CONF
chown "$user:$user" "$profile"

echo "==> console font with the card suits (FullCyrSlav Terminus Bold $font_size)"
sed -i -e 's/^CODESET=.*/CODESET="FullCyrSlav"/' \
    -e 's/^FONTFACE=.*/FONTFACE="TerminusBold"/' \
    -e "s/^FONTSIZE=.*/FONTSIZE=\"$font_size\"/" /etc/default/console-setup
setupcon --force --save-only || true

echo "==> power: no screen blanking, no Wi-Fi power saving"
cmdline=/boot/firmware/cmdline.txt
[ -f "$cmdline" ] || cmdline=/boot/cmdline.txt
if [ -f "$cmdline" ] && ! grep -q 'consoleblank=0' "$cmdline"; then
    sed -i '1 s/$/ consoleblank=0/' "$cmdline"
fi
if [ -d /etc/NetworkManager/conf.d ]; then
    cat > /etc/NetworkManager/conf.d/traveller-wifi-powersave.conf <<'CONF'
[connection]
# 2 = disabled: a sleeping Wi-Fi adapter makes the terminal look offline between boards.
wifi.powersave = 2
CONF
fi

if [ -n "$ntp" ]; then
    echo "==> clock from $ntp (a Pi has no battery clock; the club LAN has no internet)"
    install -d /etc/systemd/timesyncd.conf.d
    printf '[Time]\nNTP=%s\n' "$ntp" > /etc/systemd/timesyncd.conf.d/traveller.conf
    systemctl restart systemd-timesyncd || true
fi

systemctl daemon-reload
echo
echo "Done. Reboot (sudo reboot): the terminal starts on the screen and asks for the table's"
echo "pairing code once. Check this Pi with: traveller doctor --server auto"
