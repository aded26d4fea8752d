"""From raw MIME bytes to the text of a feuille de route.

Owns: decoding a message whatever its shape (utf-8, windows-1252 and latin-1 bodies, HTML
only, a ``.txt``/``.csv`` attachment only, broken MIME), and cleaning the text a player typed
(quoted replies, attribution lines such as « Le ... a écrit : », forwarded-message blocks and
signatures are removed). No database, no network: the pipeline calls :func:`extract_sheet`.

Line numbers matter: the cleaned text is what is submitted, and what the receipt quotes, so
the parser's line-numbered errors refer to the text the player gets back.
"""

from __future__ import annotations

import base64
import binascii
import email
import email.policy
import functools
import re
from dataclasses import dataclass, field
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.utils import parseaddr
from html.parser import HTMLParser
from typing import Any

from scoring.notation import is_ref

#: Attachment file name endings accepted as a sheet.
SHEET_ATTACHMENT_SUFFIXES = (".txt", ".csv", ".text")


@dataclass(frozen=True)
class ExtractedSheet:
    """What was found in a message: the cleaned text, where it came from, and notes."""

    text: str
    source: str  # "text/plain", "text/html", "attachment:NAME" or "" when nothing usable
    notes: tuple[str, ...] = field(default=())
    #: Non-blank lines left out as greeting (before the sheet) or closing words (after it),
    #: as the player wrote them: the receipt lists them, so a garbled last move written in
    #: words is never dropped without a word.
    ignored: tuple[str, ...] = field(default=())


class ReceivedMessage(EmailMessage):
    """An ``EmailMessage`` that parses each header once.

    The default policy parses a header anew at every ``get`` (``msg["Subject"]``,
    ``get_content_type()``…), and the pipeline's stages ask for the same few headers a dozen
    times per message. A lookup is remembered for as long as the header list is the same
    list of the same length; ``replace_header`` (the one change made in place) forgets it.
    """

    def get(self, name: str, failobj: Any = None) -> Any:
        headers = self._headers  # type: ignore[attr-defined]
        memo = self.__dict__.get("_header_memo")
        if memo is None or memo[0] is not headers or memo[1] != len(headers):
            memo = (headers, len(headers), {})
            self.__dict__["_header_memo"] = memo
        key = name.lower()
        cache: dict[str, Any] = memo[2]
        if key in cache:
            value = cache[key]
        else:
            value = cache[key] = super().get(name)  # a header that raises is not remembered
        return failobj if value is None else value

    def replace_header(self, _name: str, _value: Any) -> None:
        self.__dict__.pop("_header_memo", None)
        super().replace_header(_name, _value)

    def _get_params_preserve(self, failobj: Any, header: str) -> Any:
        """``Message``'s (the parameters of a header, under ``get_param``,
        ``get_filename``, ``get_content_charset``…, which a sheet's body asks three times),
        remembered for the last header texts (:func:`_header_params`)."""
        value = self.get(header, _MISSING)
        if value is _MISSING:
            return failobj
        return list(_header_params(str(value)))


_MISSING = object()


class _HeaderText:
    """A message whose every header is ``text``, for ``Message._get_params_preserve``."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def get(self, name: str, failobj: Any = None) -> str:
        return self.text


@functools.lru_cache(maxsize=4096)
def _header_params(text: str) -> tuple[Any, ...]:
    """``Message._get_params_preserve`` of a header whose text is ``text``: a function of
    that text alone (its first step is ``str`` of the header), whose items are immutable
    (pairs of strings, or of a string and an RFC 2231 triple); each caller gets a new list
    of them, as from the stock method."""
    return tuple(Message._get_params_preserve(  # type: ignore[attr-defined]
        _HeaderText(text), None, "content-type"))


#: the longest header value :class:`ParsedHeaders` remembers (a longer one is parsed anew)
HEADER_MEMO_LONGEST = 998


class ParsedHeaders(HeaderRegistry):
    """``email``'s header registry, remembering the header objects it built for the last
    few thousand (name, value) pairs: the messages of a burst carry the same
    ``Content-Type``, ``Content-Transfer-Encoding``, often the same ``Subject`` and, per
    player, the same ``From``, and parsing one costs 25–250 µs (``From``, ``Content-Type``).

    Equal by construction: the registry's result is a function of the header's name and
    its text alone, and a header object is immutable (a ``str`` whose parse tree, defects,
    addresses and parameters are only read, folding included), so the remembered object is
    the one the registry would build again. Only plain ``str`` values up to
    :data:`HEADER_MEMO_LONGEST` characters are remembered (a value given as address
    objects, or a long one, is parsed each time)."""

    def __call__(self, name: str, value: Any) -> BaseHeader:
        if type(value) is not str or len(value) > HEADER_MEMO_LONGEST:
            return super().__call__(name, value)
        return self._parsed(name, value)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 (one registry for the process's life)
    def _parsed(self, name: str, value: str) -> BaseHeader:
        return super().__call__(name, value)


#: the default policy, building :class:`ReceivedMessage` objects (subparts included), its
#: headers read through :class:`ParsedHeaders`
RECEIVED_POLICY = email.policy.default.clone(message_factory=ReceivedMessage,
                                             header_factory=ParsedHeaders())


def parse_message(raw: bytes) -> EmailMessage:
    """Parse bytes into an ``EmailMessage``; never raises on malformed MIME (defects kept)."""
    msg = email.message_from_bytes(raw, policy=RECEIVED_POLICY)
    assert isinstance(msg, EmailMessage)
    return msg


@functools.lru_cache(maxsize=4096)
def address(text: str) -> tuple[str, str]:
    """``email.utils.parseaddr(text)`` (display name, address), remembered for the last
    texts: a message's ``From`` is read by the loop rules and by the identification, and
    its envelope recipient twice, each reading some 15 µs. A function of the text alone,
    returning an immutable pair: the same result."""
    return parseaddr(text)


def header(msg: Message, name: str) -> str:
    """One header as a clean ``str`` ('' when absent or undecodable)."""
    try:
        value = msg.get(name)
    except Exception:  # malformed encoded-words make the default policy raise
        value = None
        for key, raw_value in msg.raw_items() if isinstance(msg, EmailMessage) else []:
            if key.lower() == name.lower():
                value = str(raw_value)
                break
    if value is None:
        return ""
    return " ".join(_no_surrogates(str(value)).split())


def _no_surrogates(text: str) -> str:
    """Raw 8-bit header bytes come back as lone surrogates, which no database or encoder
    accepts: read them as UTF-8 (what such mailers usually send), else replace them."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Decode a body or attachment: BOM, then the declared charset, utf-8, windows-1252.

    ``iso-8859-1`` is read as windows-1252 (its superset for printable text), as browsers
    do: French mailers that say latin-1 often send « œ », curly quotes or « € » from 1252.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    candidates: list[str] = []
    if declared:
        cs = declared.strip().strip('"').lower()
        if cs in ("iso-8859-1", "iso8859-1", "latin-1", "latin1", "us-ascii", "ascii"):
            cs = "cp1252" if cs.startswith(("iso", "lat")) else "utf-8"
        candidates.append(cs)
    candidates += ["utf-8", "cp1252"]
    for cs in candidates:
        try:
            return data.decode(cs)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("latin-1")


def _lenient_base64(text: str) -> bytes | None:
    # Keep the valid leading run: a corrupted tail must not cost the lines before it.
    m = re.match(r"[A-Za-z0-9+/=\s]*", text)
    clean = re.sub(r"\s", "", m.group(0) if m else "").rstrip("=")
    clean = clean[: len(clean) - len(clean) % 4]
    try:
        return base64.b64decode(clean) if clean else None
    except (binascii.Error, ValueError):
        return None


def _part_text(part: Message) -> str:
    if str(part.get("Content-Transfer-Encoding", "")).strip().lower() == "base64":
        raw = part.get_payload()
        if isinstance(raw, str):
            try:
                data = base64.b64decode(re.sub(r"\s", "", raw), validate=True)
            except (binascii.Error, ValueError):
                data = _lenient_base64(raw) or b""
            return decode_bytes(data, part.get_content_charset())
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return decode_bytes(payload, part.get_content_charset())
    raw = part.get_payload()
    return raw if isinstance(raw, str) else ""


class _HTMLToText(HTMLParser):
    _BLOCK = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table",
              "ul", "ol", "hr", "section", "article", "header", "footer"}
    _SKIP = {"script", "style", "head", "title", "blockquote"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip_depth = 0
        self.pre_depth = 0

    _VOID = {"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base"}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip_depth:
            if tag not in self._VOID:
                self.skip_depth += 1
            return
        classes = " ".join(v or "" for k, v in attrs if k == "class")
        if tag in self._SKIP or (tag == "div" and ("gmail_quote" in classes
                                                   or "moz-cite-prefix" in classes)):
            self.skip_depth = 1
            return
        if tag == "pre":
            self.pre_depth += 1
        if tag in ("td", "th"):
            self.out.append(" ")
        if tag in self._BLOCK:
            self.out.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr") and not self.skip_depth:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.skip_depth:
            self.skip_depth -= 1
            return
        if tag == "pre":
            self.pre_depth = max(0, self.pre_depth - 1)
        if tag in self._BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.pre_depth:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"[ \t\r\n]+", " ", data))


def html_to_text(html: str) -> str:
    """Visible text of an HTML body, one line per block; quoted blocks are left out."""
    parser = _HTMLToText()
    parser.feed(html)
    parser.close()
    lines = [line.strip() for line in "".join(parser.out).split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


_ATTRIBUTION_END = re.compile(r"(a écrit|a ecrit|wrote|schrieb|a scris)\s*:\s*$", re.I)
_ATTRIBUTION_START = re.compile(r"^\s*(Le|On|Am|În|In)\s", re.I)
_FORWARD_MARKERS = re.compile(
    r"^\s*(-{2,}\s*(Message d'origine|Original Message|Message transféré|Forwarded message"
    r"|Mesaj original)\s*-{2,}|_{10,})\s*$",
    re.I,
)
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)


def clean_text(text: str) -> str:
    """Remove what the player did not write for us: quotes, attributions, signature.

    Lines are blanked rather than removed when they sit *between* kept lines, so the
    numbering of the sheet the player typed stays recognisable; leading and trailing
    blank lines are trimmed.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_INVISIBLE)
    text = text.replace("\u00a0", " ").replace("\u202f", " ")
    lines = text.split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if line in ("-- ", "--") or lines[i] == "-- ":
            break  # signature: RFC 3676 delimiter, everything after is not the sheet
        if _FORWARD_MARKERS.match(line):
            break  # Outlook-style quoted original follows, without '>' prefixes
        if line.lstrip().startswith(">"):
            kept.append("")
            i += 1
            continue
        if _ATTRIBUTION_START.match(line):
            # « Le lun. 3 mai 2021 à 10:00, X <x@y> a écrit : » may wrap over 3 lines.
            joined = line
            span = 1
            while span <= 3 and not _ATTRIBUTION_END.search(joined) and i + span < len(lines):
                joined += " " + lines[i + span].strip()
                span += 1
            if _ATTRIBUTION_END.search(joined):
                kept.extend([""] * span)
                i += span
                continue
        kept.append(line)
        i += 1
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


_HEADER_FIELD = re.compile(
    r"^\s*(probl[eè]me|problem[ae]?|[ée]nonc[ée]|joueur|nom|player|juc[aă]tor|envoy[ée]"
    r"|envoi|date d'envoi|rang[ée]e|groupes?\s*\d*|scrabbles|solutions|construction|coups?"
    r"|tirage|pb)\b[^:=]*[:=|]",
    re.I,
)
_CAPS_WORD = re.compile(r"\b[A-ZÀ-Ý?]{2,}\b|\([A-Z]\)|[A-Z]0")


def _sheet_like(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _HEADER_FIELD.match(stripped) or re.match(r"^\d", stripped):
        return True
    if any(sep in stripped for sep in ("|", ";", "\t")):
        return True
    if re.match(r"^(passe|pass|annul)", stripped, re.I):
        return True
    has_ref = any(is_ref(token) for token in re.split(r"\W+", stripped) if token)
    return has_ref and bool(_CAPS_WORD.search(stripped))


def trim_prose(text: str) -> str:
    """Drop the greeting before the sheet and the closing words after it.

    Only *leading* and *trailing* lines that look like neither a header field
    (``Problème : ...``) nor a move are dropped; anything between two sheet lines is kept,
    so the parser reports it (with its line number) rather than us hiding it.
    """
    return split_prose(text)[0]


def split_prose(text: str) -> tuple[str, tuple[str, ...]]:
    """:func:`trim_prose`, and the non-blank lines it dropped (stripped, in order)."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _sheet_like(line)), None)
    if first is None:
        return text, ()
    last = max(i for i, line in enumerate(lines) if _sheet_like(line))
    dropped = lines[:first] + lines[last + 1:]
    return "\n".join(lines[first:last + 1]), tuple(x.strip() for x in dropped if x.strip())


def _csv_to_text(text: str) -> str:
    # Spreadsheet exports use ';' (French locale) or ',' or tabs between columns.
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        cells = re.split(r"[;\t]" if (";" in line or "\t" in line) else r",", line)
        out.append(" ".join(c.strip().strip('"').strip() for c in cells).strip())
    return "\n".join(out)


def _filename(part: Message) -> str:
    try:
        return part.get_filename() or ""
    except Exception:
        return ""


def extract_sheet(msg: Message) -> ExtractedSheet:
    """Find the feuille de route in a message.

    Order of preference: a ``.txt``/``.csv`` attachment (attaching is a deliberate act and
    the body then usually only says « ci-joint »), the first text/plain body part, the first
    text/html part converted to text.
    """
    plain: str | None = None
    html: str | None = None
    attachment: tuple[str, str] | None = None
    notes: list[str] = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        if ctype in ("message/delivery-status", "message/rfc822"):
            continue
        name = _filename(part)
        disposition = (part.get_content_disposition() or "").lower()
        if name.lower().endswith(SHEET_ATTACHMENT_SUFFIXES) or (
            disposition == "attachment" and ctype in ("text/plain", "text/csv")
        ):
            if attachment is None:
                body = _part_text(part)
                if name.lower().endswith(".csv") or ctype == "text/csv":
                    body = _csv_to_text(body)
                attachment = (name or "feuille.txt", body)
            continue
        if disposition == "attachment" or name:
            notes.append(f"pièce jointe ignorée : {name or ctype}")
            continue
        if ctype == "text/plain" and plain is None:
            plain = _part_text(part)
        elif ctype == "text/html" and html is None:
            html = _part_text(part)
    if attachment is not None:
        text, ignored = split_prose(clean_text(attachment[1]))
        if text.strip():
            return ExtractedSheet(text, f"attachment:{attachment[0]}", tuple(notes), ignored)
    if plain is not None:
        text, ignored = split_prose(clean_text(plain))
        if text.strip():
            return ExtractedSheet(text, "text/plain", tuple(notes), ignored)
    if html is not None:
        text, ignored = split_prose(clean_text(html_to_text(html)))
        if text.strip():
            return ExtractedSheet(text, "text/html", tuple(notes), ignored)
    return ExtractedSheet("", "", tuple(notes))
