#!/usr/bin/env bash
# Installs everything the tests need (Chromium, Japanese fonts, Python test packages) and runs
# every test. This is the README's second quickstart command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "noto sans cjk" \
   || ! fc-list 2>/dev/null | grep -qi "noto color emoji"; then
  echo "== installing chromium, fonts-noto-cjk and fonts-noto-color-emoji (apt-get)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null
fi

# llama-cpp-python is built from source by pip (there is no binary wheel): it needs a C/C++ compiler
# and cmake. The first install takes about 10-20 minutes on two cores; later runs reuse pip's cache.
if ! command -v cmake >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
  echo "== installing build-essential and cmake (apt-get), to build llama-cpp-python"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq build-essential cmake >/dev/null
fi

# PostgreSQL for the tests that run the store on it: tests/pg.py starts a throwaway cluster (initdb +
# pg_ctl, as the `postgres` user when run as root) under a temp dir. SAIVERSE_TEST_POSTGRES=0 skips them.
if [ "${SAIVERSE_TEST_POSTGRES:-1}" != "0" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "== installing postgresql (apt-get), for the PostgreSQL store tests"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi

# sox makes and measures the recordings of the voice tests (tests/support/fakes_listen.py, the embedded voice's WAV).
if ! command -v sox >/dev/null 2>&1; then
  echo "== installing sox (apt-get), for the voice tests"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq sox >/dev/null
fi

PY="${PYTHON:-python3}"
echo "== installing Python packages (the first build of llama-cpp-python takes 10-20 minutes)"
"$PY" -m pip install -q --disable-pip-version-check -r requirements-dev.txt

echo "== ruff"
"$PY" -m ruff check .

echo "== pytest"
exec "$PY" -m pytest -q "$@"
