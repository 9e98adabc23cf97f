#!/usr/bin/env bash
# A self-signed TLS certificate for the club LAN (10 years), for the Traveller server.
#
#   sudo ./make-cert.sh                          /etc/traveller/tls, names from this machine
#   ./make-cert.sh DIR [NAME-OR-IP ...]          e.g. ./make-cert.sh /tmp/tls club.local 192.168.1.10
#
# Then set TRAVELLER_SSL_CERTFILE / TRAVELLER_SSL_KEYFILE in /etc/traveller/traveller.env and
# copy traveller.crt to each terminal (browsers: accept it once, or import it).
set -euo pipefail

dir=${1:-/etc/traveller/tls}
[ $# -gt 0 ] && shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    host=$(hostname -s 2>/dev/null || hostname)
    names=("$host" "$host.local" localhost 127.0.0.1)
    for ip in $(hostname -I 2>/dev/null || true); do
        names+=("$ip")
    done
fi

san=""
for name in "${names[@]}"; do
    if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then
        san+="IP:$name,"
    else
        san+="DNS:$name,"
    fi
done
san=${san%,}

mkdir -p "$dir"
umask 077
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
    -keyout "$dir/traveller.key" -out "$dir/traveller.crt" \
    -subj "/CN=${names[0]}/O=Traveller club server" \
    -addext "subjectAltName=$san" \
    -addext "basicConstraints=critical,CA:TRUE" 2>/dev/null
chmod 0644 "$dir/traveller.crt"
chmod 0600 "$dir/traveller.key"
if id traveller >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    chown traveller:traveller "$dir/traveller.key"
fi
echo "certificate: $dir/traveller.crt  ($san)"
echo "key:         $dir/traveller.key"
