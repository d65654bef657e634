#!/usr/bin/env bash
# System packages the test suites need (Debian/Ubuntu, apt-get):
#  - a C/C++ toolchain and python3 for node-gyp (better-sqlite3 compiles from source when no
#    prebuilt binary can be downloaded);
#  - python3-confluent-kafka: librdkafka's in-memory mock Kafka cluster, which the Kafka
#    adapter's contract suite runs against (no Kafka server needed).
#  - redis-server: the rate limits shared by replicas through Redis (the access suite starts
#    its own server on a free port).
# Installs only what is missing; needs root or sudo when something is missing.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi
need=()
/usr/bin/python3 -c 'import confluent_kafka' >/dev/null 2>&1 || need+=(python3-confluent-kafka)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ "${#need[@]}" -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "missing system packages: ${need[*]} (install them with your package manager)" >&2
  exit 1
fi
echo "installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${need[@]}"
