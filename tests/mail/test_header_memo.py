"""``mailer.parse.ParsedHeaders`` (the remembered header objects) against ``email``'s own
registry: the same text, class, defects, parsed attributes and folded lines, for the
corpus's messages and for random headers, read fresh and read again from the memo; and
``mailer.parse.address`` (a remembered ``parseaddr``) against ``parseaddr``."""

from __future__ import annotations

import email
import email.policy
from email.headerregistry import HeaderRegistry
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mailer.parse import RECEIVED_POLICY, ParsedHeaders, address, parse_message

EML_DIR = Path(__file__).with_name("eml")
STOCK = HeaderRegistry()
#: the attributes the registry's header classes expose (those a class lacks are skipped)
ATTRIBUTES = ("name", "defects", "addresses", "groups", "datetime", "version", "major",
              "minor", "params", "content_type", "maintype", "subtype", "content_disposition",
              "cte", "max_count")


def described(header: Any) -> dict[str, Any]:
    """Everything a reader of ``header`` can see, as comparable values."""
    out: dict[str, Any] = {"str": str(header), "bases": [c.__name__ for c in
                                                          type(header).__mro__[1:]]}
    for attr in ATTRIBUTES:
        if hasattr(header, attr):
            value = getattr(header, attr)
            if attr == "defects":
                value = [(type(d).__name__, str(d)) for d in value]
            elif attr == "params":
                value = dict(value)
            elif attr in ("addresses", "groups"):
                value = [repr(v) for v in value]
            out[attr] = value
    for policy in (email.policy.default, email.policy.SMTP, email.policy.SMTPUTF8):
        out[f"fold {policy.linesep!r} {policy.utf8}"] = header.fold(policy=policy)
    return out


def outcome(factory: Any, name: str, value: str) -> Any:
    """What reading the header gives: its description, or the exception it raises (some
    malformed values make the registry itself raise; those are never remembered)."""
    try:
        return described(factory(name, value))
    except Exception as exc:  # noqa: BLE001 (the same failure is what is compared)
        return ("raises", type(exc).__name__, str(exc))


def check(name: str, value: str) -> None:
    want = outcome(STOCK, name, value)
    memo = ParsedHeaders()
    assert outcome(memo, name, value) == want  # built
    assert outcome(memo, name, value) == want  # remembered (folded before: unchanged)
    assert outcome(RECEIVED_POLICY.header_factory, name, value) == want


def test_corpus_headers_equal_to_the_registry() -> None:
    files = sorted(EML_DIR.glob("*.eml"))
    assert files
    for path in files:
        raw = path.read_bytes()
        stock = email.message_from_bytes(raw, policy=email.policy.default)
        for _ in range(2):  # the second time, every header comes from the memo
            msg = parse_message(raw)
            for (name, value), (_n, stock_value) in zip(msg.raw_items(), stock.raw_items(),
                                                        strict=True):
                check(name, value)
                assert described(msg.get(name)) == described(stock.get(name))
                assert str(stock_value) == str(value)
            for part, stock_part in zip(msg.walk(), stock.walk(), strict=True):
                assert part.get_content_type() == stock_part.get_content_type()
                assert part.get_content_charset() == stock_part.get_content_charset()
                assert part.get_filename() == stock_part.get_filename()
            assert msg.as_bytes() == stock.as_bytes()
            assert msg.as_string() == stock.as_string()


_PIECES = st.sampled_from([
    "Joueur 1", "<joueur1@bench.example>", "a@b.c", '"Dupont, Jean"', "=?utf-8?q?Probl=C3=A8me?=",
    "=?iso-8859-1?b?6XTp?=", "=?utf-8?q?bad", "Problème", "B1", ":", ";", ",", "<", ">", "(",
    ")", "(commentaire)", '"', "\\", "@", " ", "  ", "\t", "text/plain", 'charset="utf-8"',
    "charset=utf-8", "name*=utf-8''f%C3%A9.txt", "boundary=xyz", "7bit", "base64", "1.0",
    "Mon, 30 Nov 2026 10:00:00 +0100", "undisclosed-recipients:;", "group: a@b.c, d@e.f;",
    "\udce9", "é", "€", "x" * 80, "=?", "?=", "[I3]", "Re:", "via Liste",
])
_NAMES = st.sampled_from([
    "Subject", "From", "To", "Cc", "Reply-To", "Sender", "Date", "Message-ID", "MIME-Version",
    "Content-Type", "Content-Transfer-Encoding", "Content-Disposition", "X-Autoreply",
    "content-type", "FROM", "List-Id",
])


@settings(max_examples=300, deadline=None)
@given(name=_NAMES, pieces=st.lists(_PIECES, max_size=8),
       extra=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                     max_size=12))
def test_random_headers_equal_to_the_registry(name: str, pieces: list[str],
                                              extra: str) -> None:
    check(name, "".join(pieces) + extra)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=8),
       extra=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                     max_size=12))
def test_remembered_parseaddr_equal_to_parseaddr(pieces: list[str], extra: str) -> None:
    text = "".join(pieces) + extra
    want = parseaddr(text)
    assert address(text) == want  # built
    assert address(text) == want  # remembered
    assert type(address(text)) is type(want)


def params_seen(msg: Any) -> Any:
    """What a reader of the messages' header parameters sees."""
    out: list[Any] = []
    for call in (lambda: msg.get_params(), lambda: msg.get_params(unquote=False),
                 lambda: msg.get_params(header="content-disposition"),
                 lambda: msg.get_params("absent", header="x-absent"),
                 lambda: msg.get_param("charset"), lambda: msg.get_param("name", "none"),
                 lambda: msg.get_param("filename", "none", "content-disposition"),
                 msg.get_filename, msg.get_content_charset, msg.get_boundary,
                 msg.get_content_disposition, msg.get_content_type, msg.get_charsets):
        try:
            out.append(call())
        except Exception as exc:  # noqa: BLE001 (the same failure is what is compared)
            out.append(("raises", type(exc).__name__, str(exc)))
    return out


def check_params(content_type: str | None, disposition: str | None) -> None:
    lines = [f"Content-Type: {content_type}"] if content_type is not None else []
    if disposition is not None:
        lines.append(f"Content-Disposition: {disposition}")
    raw = ("\r\n".join(["From: a@b.c", *lines, "", "1 ACEFHIR h8 FICHERA 82", ""])
           ).encode("utf-8", "surrogateescape")
    stock = email.message_from_bytes(raw, policy=email.policy.default)
    want = params_seen(stock)
    for _ in range(2):  # the second time, from the memo
        assert params_seen(parse_message(raw)) == want


def test_corpus_parameters_equal_to_the_stock_message() -> None:
    for path in sorted(EML_DIR.glob("*.eml")):
        raw = path.read_bytes()
        stock = email.message_from_bytes(raw, policy=email.policy.default)
        for _ in range(2):
            for part, stock_part in zip(parse_message(raw).walk(), stock.walk(), strict=True):
                assert params_seen(part) == params_seen(stock_part)


@settings(max_examples=300, deadline=None)
@given(content_type=st.one_of(st.none(), st.lists(_PIECES, max_size=8).map("".join)),
       disposition=st.one_of(st.none(), st.lists(_PIECES, max_size=6).map("".join)),
       extra=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                     max_size=8))
def test_random_parameters_equal_to_the_stock_message(content_type: str | None,
                                                      disposition: str | None,
                                                      extra: str) -> None:
    check_params(None if content_type is None else content_type + extra, disposition)
    check_params(f'text/plain; charset="utf-8"; name={extra}', "attachment; filename*="
                 f"utf-8''{extra}")
