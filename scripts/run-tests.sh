#!/usr/bin/env bash
# The whole suite on SQLite; then, when CI is set (or ARBITRE_TEST_POSTGRES=1) and the local
# PostgreSQL answers, the database tests again on PostgreSQL.
set -euo pipefail
BIN=.venv/bin
"$BIN"/pytest -q "$@"
if [ "${CI:-}" = "true" ] || [ "${ARBITRE_TEST_POSTGRES:-}" = "1" ]; then
  url="${ARBITRE_TEST_POSTGRES_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}"
  echo "== database tests again on PostgreSQL ($url)"
  ARBITRE_TEST_DATABASE_URL="$url" "$BIN"/pytest -q -m db "$@"
fi
