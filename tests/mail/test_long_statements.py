"""``webapp.db.remember_long_statements``: psycopg's remembered conversion of a long
statement (the batch's multi-row INSERT) gives what converting it anew gives."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

psycopg = pytest.importorskip("psycopg")

from psycopg import _queries  # noqa: E402
from psycopg.adapt import Transformer  # noqa: E402

from webapp.db import LONG_STATEMENT_PARAMS, remember_long_statements  # noqa: E402


def statement(rows: int) -> tuple[bytes, dict[str, object]]:
    columns = ["created_at", "kind", "to_addr", "subject", "body_text", "headers", "attempts"]
    values = ", ".join("(" + ", ".join(f"%({c}__{r})s" for c in columns) + ")"
                       for r in range(rows))
    query = (f"INSERT INTO outbox_message ({', '.join(columns)}) VALUES {values} "
             "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, dedupe_key").encode()
    params: dict[str, object] = {}
    for r in range(rows):
        params.update({f"created_at__{r}": datetime(2026, 5, 10, tzinfo=UTC),
                       f"kind__{r}": "receipt", f"to_addr__{r}": f"a{r}@b.c",
                       f"subject__{r}": "Accusé 100 %", f"body_text__{r}": "x" * r,
                       f"headers__{r}": '{"a": 1}', f"attempts__{r}": r})
    return query, params


def converted(query: bytes, params: dict[str, object]) -> tuple[object, ...]:
    pq = _queries.PostgresQuery(Transformer())
    pq.convert(query, params)
    return (pq.query, pq.params, pq.types, pq.formats)


def test_long_statements_are_remembered_and_converted_the_same() -> None:
    remember_long_statements()
    remember_long_statements()  # once or twice: the same limits
    assert _queries.MAX_CACHED_STATEMENT_PARAMS >= 1800
    for rows in (1, 3, 100, LONG_STATEMENT_PARAMS // 7 + 1):  # the last one too long
        query, params = statement(rows)
        fresh = _queries._query2pg_nocache(query, "utf-8")
        before = _queries._query2pg.cache_info().hits
        first, again = converted(query, params), converted(query, params)
        assert first == again
        remembered = _queries._query2pg.cache_info().hits > before
        assert remembered == (len(params) <= LONG_STATEMENT_PARAMS)
        assert _queries._query2pg_nocache(query, "utf-8") == fresh
        pq = _queries.PostgresQuery(Transformer())
        pq.convert(query, params)
        assert pq.query == fresh[0]
