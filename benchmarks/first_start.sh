#!/bin/sh
# The first start: a fresh clone of this checkout's HEAD (with BOOTSTRAP as its ./traveller),
# no pip or uv cache, `./traveller demo`; prints the seconds until it prints its first URL.
#   sh benchmarks/first_start.sh [BOOTSTRAP] [PORT]
# For the pip-only figure give the old bootstrap: git show f64bc53^:traveller > /tmp/old.sh
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bootstrap=${1:-$src/traveller}
port=${2:-8731}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/t"
cp "$bootstrap" "$work/t/traveller"
cd "$work/t"
export PIP_NO_CACHE_DIR=1 UV_NO_CACHE=1
start=$(date +%s.%N)
./traveller demo --port "$port" --data-dir "$work/data" >"$work/out" 2>&1 &
pid=$!
while ! grep -q "http://" "$work/out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/out"; exit 1; }
    sleep 0.2
done
end=$(date +%s.%N)
kill "$pid"
wait "$pid" 2>/dev/null || true
python3 -c "import sys; print(f'first URL after {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$start" "$end"
grep -E "Resolved|Prepared|Installed" .venv/install.log || true
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
