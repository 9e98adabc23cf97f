#!/usr/bin/env bash
# Install the Traveller server as a systemd service on Debian, Ubuntu or Raspberry Pi OS.
#
#   sudo ./install-server.sh                   SQLite, port 8000, mDNS, backups (a club night)
#   sudo ./install-server.sh --ntp-server      also serve the time to the terminals (chrony)
#   sudo ./install-server.sh --gateway         also run the serial keypad gateway
#   sudo ./install-server.sh --postgres URL --workers 4    a congress (see SCALING.md)
#   sudo ./install-server.sh --spec ./traveller-0.1.0-py3-none-any.whl   install a local wheel
#
# Run it again to upgrade: the environment file (and its TD password) is kept.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=/opt/traveller
data=/var/lib/traveller
etc=/etc/traveller
spec="traveller[server,keypad]"
extra_pip="zeroconf"
postgres=""
workers=1
port=8000
gateway=0
ntp_server=0
start=1

usage() {
    sed -n '2,10s/^# \{0,1\}//p' "$0"
    exit "${1:-0}"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --spec) spec=$2; shift 2 ;;
        --postgres) postgres=$2; shift 2 ;;
        --workers) workers=$2; shift 2 ;;
        --port) port=$2; shift 2 ;;
        --gateway) gateway=1; shift ;;
        --ntp-server) ntp_server=1; shift ;;
        --no-start) start=0; shift ;;
        -h|--help) usage 0 ;;
        *) echo "unknown option: $1" >&2; usage 2 ;;
    esac
done

if [ "$(id -u)" -ne 0 ]; then
    echo "run me with sudo" >&2
    exit 1
fi
case "$workers" in ''|*[!0-9]*) echo "--workers needs a number" >&2; exit 2 ;; esac
if [ "$workers" -gt 1 ] && [ -z "$postgres" ]; then
    echo "--workers > 1 needs --postgres (SQLite runs in one process)" >&2
    exit 2
fi

echo "==> system packages"
packages=(python3 python3-venv)
[ "$ntp_server" -eq 1 ] && packages+=(chrony)
[ -n "$postgres" ] && packages+=(postgresql-client)
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"

echo "==> user and folders"
if ! id traveller >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$data" --shell /usr/sbin/nologin traveller
fi
usermod -a -G dialout traveller
install -d -o traveller -g traveller -m 0750 "$data" "$data/backups"
install -d -o root -g root -m 0755 "$etc" "$prefix"

echo "==> Traveller into $prefix/venv"
[ -x "$prefix/venv/bin/python" ] || python3 -m venv "$prefix/venv"
"$prefix/venv/bin/pip" install --quiet --upgrade pip
# shellcheck disable=SC2086  # extra_pip is a list of package names
"$prefix/venv/bin/pip" install --quiet --upgrade "$spec" $extra_pip
ln -sf "$prefix/venv/bin/traveller" /usr/local/bin/traveller
rm -rf "$prefix/deploy"
cp -r "$here" "$prefix/deploy"
install -m 0755 "$here/pgdump.sh" "$prefix/pgdump.sh"

echo "==> settings in $etc/traveller.env (mode 0600)"
if [ ! -f "$etc/traveller.env" ]; then
    password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(9))')
    (
        umask 077
        sed -e "s|^TRAVELLER_TD_PASSWORD=.*|TRAVELLER_TD_PASSWORD=$password|" \
            -e "s|^TRAVELLER_PORT=.*|TRAVELLER_PORT=$port|" \
            -e "s|^TRAVELLER_WORKERS=.*|TRAVELLER_WORKERS=$workers|" \
            "$here/env/traveller.env.example" > "$etc/traveller.env"
        if [ -n "$postgres" ]; then
            sed -i "s|^TRAVELLER_DATABASE_URL=.*|TRAVELLER_DATABASE_URL=$postgres|" "$etc/traveller.env"
        fi
    )
    echo "    TD password: $password   (also in $etc/traveller.env)"
fi
chown root:root "$etc/traveller.env"
chmod 0600 "$etc/traveller.env"
if [ "$gateway" -eq 1 ] && [ ! -f "$etc/gateway.env" ]; then
    install -m 0600 -o root -g root "$here/env/gateway.env.example" "$etc/gateway.env"
fi

echo "==> systemd units and the keypad udev rule"
install -m 0644 "$here"/systemd/traveller*.service "$here"/systemd/traveller*.timer /etc/systemd/system/
install -m 0644 "$here/udev/99-traveller-keypad.rules" /etc/udev/rules.d/
if command -v udevadm >/dev/null 2>&1; then
    udevadm control --reload || true
    udevadm trigger --subsystem-match=tty || true
fi
systemctl daemon-reload

if [ "$ntp_server" -eq 1 ]; then
    echo "==> chrony serves the time to the LAN (terminals have no clock of their own)"
    install -d /etc/chrony/conf.d
    cat > /etc/chrony/conf.d/traveller.conf <<'CONF'
# Traveller: let the club's terminals set their clocks from this machine, even offline.
allow 10.0.0.0/8
allow 172.16.0.0/12
allow 192.168.0.0/16
local stratum 10
CONF
    systemctl restart chrony || true
fi

if [ "$start" -eq 1 ]; then
    echo "==> starting"
    systemctl enable --now traveller.service
    [ "$gateway" -eq 1 ] && systemctl enable --now traveller-gateway.service
    [ -n "$postgres" ] && systemctl enable --now traveller-pgdump.timer
    sleep 3
    traveller doctor --env-file "$etc/traveller.env" || true
fi

addresses=$(hostname -I 2>/dev/null || true)
echo
echo "Traveller is installed. The TD dashboard: http://<this machine>:$port/  (addresses: ${addresses:-?})"
echo "Logs: journalctl -u traveller -f     Check: sudo traveller doctor"
