"""Pure parts: text cleaning, HTML, loop rules, identification, problem matching, templates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jinja2
import pytest

from mailer.compose import TEMPLATES, format_size, render
from mailer.identify import (
    ProblemHints,
    ProblemRef,
    auth_results,
    find_token,
    match_problem,
    problem_refs,
    sender_of,
    token_from_address,
)
from mailer.parse import clean_text, decode_bytes, html_to_text, parse_message, trim_prose
from mailer.rules import bounced_recipients, classify, rate_limit_exceeded
from tests.mail.conftest import eml


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("H8 FICHERA 82\n-- \nJean\nClub", "H8 FICHERA 82"),
        ("> cité\nH8 FICHERA 82\n> encore", "H8 FICHERA 82"),
        ("H8 A 1\n\nLe lun. 3 mai 2021 à 10:00, X <x@y.fr> a\nécrit :\n> q\n15F WUS 84",
         "H8 A 1\n\n\n\n\n15F WUS 84"),
        ("H8 A 1\nOn Mon, May 3, 2021 at 10:00 AM X wrote:\n> q", "H8 A 1"),
        ("H8 A 1\n-----Message d'origine-----\nDe : arbitre\nH9 B 2", "H8 A 1"),
        ("\u00a0H8\u200b FICHERA 82\r\n", " H8 FICHERA 82"),
    ],
)
def test_clean_text(text: str, expected: str) -> None:
    assert clean_text(text) == expected


def test_trim_prose_keeps_headers_and_moves_only_at_the_edges() -> None:
    text = ("Bonjour,\nvoici ma feuille (problème I3).\nProblème : I3\n"
            "1 ACEFHIR h8 FICHERA 82 82\nune remarque\nH8 WUS 84\nMerci !\nAna")
    assert trim_prose(text) == "Problème : I3\n1 ACEFHIR h8 FICHERA 82 82\nune remarque\nH8 WUS 84"
    assert trim_prose("rien ici") == "rien ici"


@pytest.mark.parametrize(
    ("data", "charset", "expected"),
    [
        ("cœur’".encode("cp1252"), "iso-8859-1", "cœur’"),
        ("été".encode("latin-1"), None, "été"),
        ("été".encode(), "windows-1252", "Ã©tÃ©"),
        ("été".encode(), None, "été"),
        (b"\xef\xbb\xbf" + "été".encode(), "cp1252", "été"),
        ("été".encode("utf-16"), None, "été"),
    ],
)
def test_decode_bytes(data: bytes, charset: str | None, expected: str) -> None:
    assert decode_bytes(data, charset) == expected


def test_html_to_text_drops_quotes_and_styles() -> None:
    html = ("<html><head><style>p{}</style></head><body><p>1 ACEFHIR <b>h8</b> FICHERA&nbsp;82"
            "</p><blockquote><p>vieux</p><div>x</div></blockquote><div>2 SUW 15f WUS 84<br>"
            "</div><div class='gmail_quote'><div><div>Le ... a écrit</div></div></div><p>fin</p>")
    assert html_to_text(html) == "1 ACEFHIR h8 FICHERA\u00a082\n\n2 SUW 15f WUS 84\n\nfin"


def test_classify_table() -> None:
    def msg(headers: str) -> object:
        return parse_message(("From: a@b.c\r\nSubject: I3\r\n" + headers + "\r\nx\r\n").encode())

    assert classify(msg(""), "a@b.c").kind == "normal"
    assert classify(msg("Auto-Submitted: no\r\n"), "a@b.c").kind == "normal"
    assert classify(msg("Auto-Submitted: auto-replied\r\n"), "a@b.c").kind == "auto"
    assert classify(msg("Auto-Submitted: auto-generated\r\n"), "a@b.c").kind == "auto"
    assert classify(msg("Precedence: bulk\r\n"), "a@b.c").kind == "auto"
    assert classify(msg("Precedence: junk\r\n"), "a@b.c").kind == "auto"
    assert classify(msg("X-Autoreply: yes\r\n"), "a@b.c").kind == "auto"
    assert classify(msg("X-Autorespond: yes\r\n"), "a@b.c").kind == "auto"
    assert classify(msg(""), "<>").kind == "auto"
    assert classify(msg(""), "").kind == "normal"  # unknown sender (IMAP), not <>
    assert classify(msg("Precedence: list\r\n"), "a@b.c").kind == "list"
    assert classify(msg("List-Id: <l.example>\r\n"), "a@b.c").may_reply is False
    assert classify(msg("List-Id: <l.example>\r\n"), "a@b.c").may_submit is True
    oof = parse_message(b"From: a@b.c\r\nSubject: Absence du bureau\r\n\r\nx\r\n")
    assert classify(oof, "a@b.c").kind == "auto"
    assert classify(parse_message(eml("bounce_dsn.eml")), "<>").kind == "bounce"


def test_bounced_recipients() -> None:
    assert bounced_recipients(parse_message(eml("bounce_dsn.eml"))) == ["bogdan@example.net"]


def test_rate_limit_window() -> None:
    now = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
    recent = [now - timedelta(minutes=m) for m in range(0, 50, 5)]  # 10 within the hour
    assert rate_limit_exceeded(recent, now, per_hour=10) is True
    assert rate_limit_exceeded(recent[:9], now, per_hour=10) is False
    old = [now - timedelta(hours=1, minutes=1)] * 50
    assert rate_limit_exceeded(old, now, per_hour=10) is False
    assert rate_limit_exceeded(recent, now, per_hour=0) is False


def test_tokens() -> None:
    assert token_from_address("Feuilles+tokAna1234@arbitre.test", "feuilles") == "tokAna1234"
    assert token_from_address("<feuilles+abc@x>", "feuilles") is None  # too short
    assert token_from_address("autre+tokAna1234@x", "feuilles") is None
    m = parse_message(b"From: a@b.c\r\nTo: feuilles@x\r\nSubject: I3 jeton: tokAna1234\r\n\r\n")
    assert find_token([], m, "feuilles") == "tokAna1234"
    assert find_token(["feuilles+tokBogdan99@x"], m, "feuilles") == "tokBogdan99"


def test_sender_list_rewrite() -> None:
    s = sender_of(parse_message(eml("list_rewritten.eml")))
    assert (s.address, s.rewritten) == ("ana.ionescu@example.org", True)
    assert s.from_header == "scrabble-corresp@listes.example.com"
    # A Reply-To alone does not replace an ordinary From.
    plain = parse_message(b"From: Ana <ANA@x.org>\r\nReply-To: other@y.org\r\n\r\n")
    assert (sender_of(plain).address, sender_of(plain).rewritten) == ("ana@x.org", False)


PROBLEMS = [ProblemRef(1, "I3", "Intégral n° 3"), ProblemRef(2, "A7", "Anticipation 7")]


@pytest.mark.parametrize(
    ("subject", "sheet", "expected"),
    [
        ("Problème : I3", "", 1),
        ("Re: Accusé de réception — Intégral n° 3 (I3)", "", 1),
        ("[A7] ma feuille", "", 2),
        ("[Liste] ma feuille", "Problème: a7\n1 X h8 A", 2),
        ("ma feuille", "", None),
        ("anticipation 7", "", 2),
        ("Problème : Z9", "", None),
        ("I3 et A7", "", None),
    ],
)
def test_match_problem(subject: str, sheet: str, expected: int | None) -> None:
    hints, text = problem_refs(subject, sheet)
    assert text == sheet
    found = match_problem(hints, PROBLEMS)
    assert (found.id if found else None) == expected


def test_single_open_problem_is_the_default_unless_contradicted() -> None:
    only = PROBLEMS[:1]
    assert match_problem(ProblemHints((), ("ma feuille",)), only) == only[0]
    assert match_problem(ProblemHints(("A7",), ("ma feuille",)), only) is None


def test_auth_results() -> None:
    got = auth_results(parse_message(eml("spoofed_token.eml")))
    assert {k: got[k] for k in ("dkim", "spf", "dmarc")} == {
        "dkim": "none", "spf": "fail", "dmarc": "fail"}


MINIMAL = {
    "appeal_answer": {"player_name": "Ana", "problem_title": "I3", "accepted": False,
                      "answer": "Le mot est absent de la liste."},
    "receipt": {"player_name": "Ana", "problem_title": "I3", "received_at": "x"},
    "reminder": {"player_name": "Ana", "problem_title": "I3", "deadline": "x", "days_left": 3},
    "publication": {"player_name": "Ana", "problem_title": "I3", "deadline": "x"},
    "results": {"player_name": "Ana", "problem_title": "I3", "ranking": []},
    "instructions": {"sender": "x@y"},
    "ambiguity": {"player_name": "Ana", "open_problems": []},
    "login": {"link": "http://x/l/abc"},
    "refused_too_large": {"size": 20 * 1024 * 1024, "limit": 10 * 1024 * 1024},
    "refused": {"player_name": "Ana", "problem_title": "I3", "reason": "non inscrit"},
    "parse_errors": {"player_name": "Ana", "problem_title": "I3", "errors": []},
    "announcement": {"player_name": "Ana", "problem_title": "A1", "move": 2,
                     "current": {"move": 2, "at": "x", "groups": [{"number": 7,
                                                                     "letters": "ABCDEFG"}]},
                     "announced": []},
    "duplicate_draw": {"player_name": "Ana", "game_title": "D1", "round_no": 1,
                       "rack": "EAIRSTU", "deadline": "demain", "grid": "(grille)"},
    "duplicate_receipt": {"player_name": "Ana", "game_title": "D1", "round_no": 1,
                          "received_at": "x"},
    "duplicate_reminder": {"player_name": "Ana", "game_title": "D1", "round_no": 1,
                           "rack": "EAIRSTU", "deadline": "demain"},
    "duplicate_results": {"player_name": "Ana", "game_title": "D1", "round_no": 1,
                          "top_ref": "H4", "top_word": "RESTAIT", "top_score": 70,
                          "score": 70, "reason": ""},
    "duplicate_final": {"player_name": "Ana", "game_title": "D1", "ranking": []},
    "corr_turn": {"player_name": "Ana", "game_title": "C1"},
    "corr_reminder": {"player_name": "Ana", "game_title": "C1", "deadline": "demain"},
    "corr_final": {"player_name": "Ana", "game_title": "C1", "reason": "fin", "red": "Ana",
                   "blue": "Bob", "red_total": 10, "blue_total": 8},
    "duplicate_refused": {"player_name": "Ana", "game_title": "D1", "reason": "trop long"},
    "duplicate_corrected": {"player_name": "Ana", "game_title": "D1", "round_no": 1,
                            "top_ref": "H4", "top_word": "RESTAIT", "top_score": 70,
                            "score": 70, "old_score": 0, "reason": ""},
}


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_every_template_renders_with_its_required_context(name: str) -> None:
    mail = render(name, **MINIMAL[name])
    assert mail.subject and "\n" not in mail.subject
    assert mail.text.endswith("\n") and "{{" not in mail.text
    assert mail.html.startswith("<!DOCTYPE html>") and '<html lang="fr">' in mail.html
    with pytest.raises(TypeError, match="variables manquantes"):
        render(name)


def test_render_errors_and_escaping() -> None:
    with pytest.raises(KeyError):
        render("nope")
    mail = render("login", link="http://x/?a=1&b=<2>", player_name="<Ana>")
    assert "&lt;Ana&gt;" in mail.html and "<Ana>" in mail.text
    with pytest.raises(jinja2.UndefinedError):
        render("results", player_name="A", problem_title="P", ranking=[{"rank": 1}])


def test_receipt_content() -> None:
    mail = render(
        "receipt", player_name="Ana", problem_title="Intégral n° 3 (I3)",
        received_at=datetime(2026, 5, 10, 10, 0, tzinfo=UTC),
        deadline=datetime(2026, 5, 12, 16, 0, tzinfo=UTC), late=False, channel="email",
        moves=[{"number": 1, "ref": "H8", "word": "FICHERA", "score": 82, "cumul": 82}],
        errors=[{"line": 3, "message": "référence manquante"}],
    )
    assert mail.subject == "Accusé de réception — Intégral n° 3 (I3)"
    assert "le 10/05/2026 à 10:00 UTC" in mail.text
    assert "Clôture du problème : 12/05/2026 à 16:00 UTC" in mail.text
    assert "   1. FICHERA  H8  82  (cumul 82)" in mail.text
    assert "  - ligne 3 : référence manquante" in mail.text
    assert "ne sont vérifiés qu'après la clôture" in mail.text
    late = render("receipt", player_name="A", problem_title="P", received_at="x", late=True,
                  deadline="hier")
    assert late.subject == "Accusé de réception — P (HORS DÉLAI)"
    assert "APRÈS la clôture (hier)" in late.text


def test_format_size() -> None:
    assert [format_size(n) for n in (512, 2048, 10 * 1024 * 1024)] == [
        "512 octets", "2,0 Ko", "10,0 Mo"]


def test_a_received_message_parses_each_header_once_and_forgets_it_when_changed() -> None:
    """parse.ReceivedMessage remembers header lookups (issue 23 §3: the stages asked the
    default policy to parse the same headers a dozen times a message), and never returns a
    value the message no longer has."""
    from mailer.parse import ReceivedMessage

    raw = (b"From: Ana <ana@example.org>\r\nSubject: =?utf-8?q?Probl=C3=A8me_I3?=\r\n"
           b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
           b"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1 ACEFHIR h8 FICHERA 82\r\n"
           b"--b--\r\n")
    msg = parse_message(raw)
    assert isinstance(msg, ReceivedMessage)
    assert all(isinstance(part, ReceivedMessage) for part in msg.walk())
    first = msg["Subject"]
    assert first == "Problème I3"
    assert msg.get("subject") is first  # the same parsed header, not parsed again
    assert msg.get("X-Absent", "rien") == "rien" and msg["X-Absent"] is None
    msg.replace_header("Subject", "Problème I4")
    assert msg["Subject"] == "Problème I4"
    del msg["Subject"]
    assert msg["Subject"] is None
    msg["Subject"] = "Problème I5"
    assert msg["Subject"] == "Problème I5"
    msg["X-Absent"] = "là"
    assert msg.get("X-Absent", "rien") == "là"
    assert msg.get_content_type() == "multipart/mixed"


@pytest.mark.parametrize("subject", [
    "Ana Ionescu – Bogdan Pop (CO1) — rappel : à vous de jouer avant le 27/12/2099 à 20:00 "
    "(Europe/Bucharest, UTC+02:00)",
    "Arbitre — accusé de réception : feuille de route reçue pour le problème P-2026-12 "
    "« Intégral »",
    "Ș" * 120,
    "Reçu",
    "plain ASCII subject that is long enough to be folded by the header folder somewhere",
])
def test_a_long_non_ascii_subject_keeps_its_spaces_when_folded(subject: str) -> None:
    """Python 3.11's header folder lost the space where it cut a long subject into encoded
    words (CPython gh-144156: « rappel :à vous »); the outbox folds such a subject itself.
    Flattened as aiosmtplib sends it (SMTP without SMTPUTF8) and as the mbox stores it."""
    import email
    import email.policy
    from email.generator import BytesGenerator
    from io import BytesIO

    from mailer.outbox import _mbox_bytes, build_message
    from webapp.models import OutboxMessage

    row = OutboxMessage(to_addr="ana@example.org", subject=subject, body_text="Bonjour",
                        message_id="<1@arbitre.test>", kind="receipt",
                        created_at=datetime(2026, 12, 1, 20, 0, tzinfo=UTC))
    msg = build_message(row, "arbitre@arbitre.test")
    assert str(msg["Subject"]) == subject
    buf = BytesIO()
    BytesGenerator(buf, policy=msg.policy.clone(linesep="\r\n", utf8=False)).flatten(msg)
    for raw in (buf.getvalue(), _mbox_bytes(msg)):
        lines = raw.split(b"\n")
        assert max(len(line.rstrip(b"\r")) for line in lines) <= 78
        received = email.message_from_bytes(raw, policy=email.policy.default)
        assert str(received["Subject"]) == subject


@pytest.mark.parametrize(
    ("text", "html", "cte"),
    [
        ("Bonjour,\nfeuille reçue.\n", "<p>Reçue — « n° 1 »</p>", "quoted-printable"),
        ("plain ascii\nshort lines\n", "<p>ascii</p>", "7bit"),
        ("x" * 120 + "\n", "<p>" + "y" * 200 + "</p>", "quoted-printable"),
        ("trailing space \ntab\t\nequals = sign\n.\nFrom here\nno final newline", None,
         "7bit"),
        ("accentué, espace final \nequals = sign\n.\nFrom here\nno final newline", None,
         "quoted-printable"),
        ("é" * 300, "ü\r\nCRLF\rCR\n", "quoted-printable"),
        ("", "", "7bit"),
    ],
)
def test_built_message_decodes_to_the_stored_text(text: str, html: str | None,
                                                   cte: str) -> None:
    """build_message encodes its text parts itself (binascii quoted-printable, cached header
    classes): read back by the stock parser, each part is what ``email`` itself would have
    produced from the same row (set_content / add_alternative), with the same headers."""
    import email
    import email.policy
    from email.message import EmailMessage

    from mailer.outbox import build_message
    from webapp.models import OutboxMessage

    row = OutboxMessage(
        created_at=datetime(2026, 5, 11, 9, 30, tzinfo=UTC), kind="receipt",
        to_addr="Ana Popescu <ana@example.org>", subject="Accusé de réception — feuille n° 1",
        body_text=text, body_html=html, headers={"In-Reply-To": "<a@b>"},
        message_id="<m1@arbitre.test>", dedupe_key="k", status="pending", attempts=0,
        next_attempt_at=datetime(2026, 5, 11, 9, 30, tzinfo=UTC))
    stock = EmailMessage()
    stock.set_content(text)
    if html:
        stock.add_alternative(html, subtype="html")
    built = build_message(row, "Arbitre <arbitre@arbitre.test>")
    ours = email.message_from_bytes(built.as_bytes(), policy=email.policy.default)
    ref = email.message_from_bytes(stock.as_bytes(), policy=email.policy.default)
    assert isinstance(ours, EmailMessage) and isinstance(ref, EmailMessage)
    for kind in ("plain", "html"):
        mine, theirs = ours.get_body((kind,)), ref.get_body((kind,))
        assert (mine is None) == (theirs is None)
        if mine is not None and theirs is not None:
            assert mine.get_content() == theirs.get_content()
            assert mine.get_content_type() == theirs.get_content_type()
            assert mine.get_param("charset") == "utf-8"
    plain = ours.get_body(("plain",))
    assert plain is not None and plain["Content-Transfer-Encoding"] == cte
    assert ours.get_content_type() == ref.get_content_type()
    assert str(ours["Subject"]) == "Accusé de réception — feuille n° 1"
    assert str(ours["To"]) == "Ana Popescu <ana@example.org>"
    assert str(ours["In-Reply-To"]) == "<a@b>"
    assert str(ours["Message-ID"]) == "<m1@arbitre.test>"


def test_the_stored_message_id_is_the_default_policys_whatever_its_shape() -> None:
    """The intake reads a simple Message-ID from the legacy header parse it makes anyway
    (``pipeline._message_id`` with ``legacy``): 4,000 seeded ids — simple ones, folded, with
    comments, quotes, escapes, encoded words, 8-bit bytes, several or none — come out as
    the default policy's parse makes them."""
    import random
    from email.parser import BytesHeaderParser
    from email.policy import compat32

    from mailer.pipeline import _message_id

    rnd = random.Random(23)
    atext = "abcXYZ019!#$%&'*+/=?^_`{|}~.-"
    odd = atext + '<>@()"\\ \t[]' + "é"
    simple = 0
    for i in range(4000):
        if i % 2:
            mid = (rnd.choice(["", " ", "\r\n "]) + "<"
                   + "".join(rnd.choice(atext) for _ in range(rnd.randint(0, 12))) + "@"
                   + "".join(rnd.choice(atext) for _ in range(rnd.randint(0, 12))) + ">"
                   + rnd.choice(["", " ", "\t"]))
        else:
            mid = rnd.choice(["=?utf-8?q?x?=", ""]) + "".join(
                rnd.choice([*odd, "\r\n "]) for _ in range(rnd.randint(0, 25)))
        head = b"".join(rnd.choice([b"Message-ID", b"message-id"]) + b": "
                        + mid.encode("utf-8") + b"\r\n" for _ in range(rnd.choice([0, 1, 1, 2])))
        raw = b"From: a@example.org\r\n" + head + b"Subject: x\r\n\r\n1 ACEFHIR h8\r\n"
        legacy = BytesHeaderParser(policy=compat32).parsebytes(raw)
        assert _message_id(raw, legacy) == _message_id(raw), raw
        simple += bool(mid.strip().startswith("<") and _message_id(raw))
    assert simple > 1000
