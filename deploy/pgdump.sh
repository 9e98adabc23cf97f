#!/usr/bin/env bash
# PostgreSQL sites: dump the event database (custom format) and keep the newest N dumps.
# Run by traveller-pgdump.timer as the traveller user; restore with pg_restore (see HA.md).
set -euo pipefail

url=${TRAVELLER_DATABASE_URL:?TRAVELLER_DATABASE_URL is not set}
keep=${TRAVELLER_BACKUP_KEEP:-48}
dir=${TRAVELLER_PGDUMP_DIR:-/var/lib/traveller/pgdump}

case "$url" in
    postgresql*) ;;
    *) echo "pgdump: $url is not PostgreSQL; SQLite is backed up by the server" >&2; exit 0 ;;
esac
# libpq does not know SQLAlchemy's driver suffix.
libpq_url="postgresql://${url#*://}"

mkdir -p "$dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
part="$dir/.traveller-$stamp.dump.part"
pg_dump --format=custom --no-owner --file="$part" "$libpq_url"
mv "$part" "$dir/traveller-$stamp.dump"

# Keep the newest $keep dumps (names sort by time).
mapfile -t dumps < <(find "$dir" -maxdepth 1 -name 'traveller-*.dump' -printf '%f\n' | sort)
excess=$(( ${#dumps[@]} - keep ))
for (( i = 0; i < excess; i++ )); do
    rm -f -- "$dir/${dumps[i]}"
done
echo "pgdump: $dir/traveller-$stamp.dump (${#dumps[@]} dumps, keeping $keep)"
