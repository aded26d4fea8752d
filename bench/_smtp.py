"""The benches' lean SMTP peers: a sending client and a recording relay, each a few lines
of ``asyncio`` streams instead of aiosmtplib and aiosmtpd.

They stand for the remote mail servers of a real deployment (the players' providers that
send the sheets, the relay that takes the receipts), which run on other machines. On the
bench's one machine their CPU is taken from the server under test: with aiosmtplib's
``send_message`` and an aiosmtpd relay they cost ≈ 2.7 + 1.1 ms a message on a 2-core
machine whose server needs ≈ 9 ms, so they are kept to the protocol's bare exchange
(no parsing of what they send or receive beyond the replies' codes and one header).

Both speak plain SMTP (RFC 5321) without pipelining: the client ``EHLO`` once per
connection, then ``MAIL``, ``RCPT``, ``DATA`` and the dot-stuffed message, each waiting for
its reply; the relay answers ``250`` to everything but ``DATA`` (``354``) and ``QUIT``
(``221``), and announces ``8BITMIME`` and ``SMTPUTF8`` as a usual relay does.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable


async def _reply(reader: asyncio.StreamReader) -> tuple[int, str]:
    """One SMTP reply (its last line's code, and all its text)."""
    lines: list[bytes] = []
    while True:
        line = await reader.readline()
        if not line:
            raise ConnectionError("connection closed by the server")
        lines.append(line)
        if line[3:4] != b"-":
            break
    return int(lines[-1][:3]), b"".join(lines).decode("utf-8", "replace")


def dot_stuffed(raw: bytes) -> bytes:
    """The message as ``DATA`` carries it: CRLF line ends, lines starting with ``.``
    doubled, the final ``.`` line."""
    body = re.sub(rb"\r?\n", b"\r\n", raw)
    if not body.endswith(b"\r\n"):
        body += b"\r\n"
    body = re.sub(rb"(?m)^\.", b"..", body)
    return body + b".\r\n"


class Client:
    """One SMTP connection that sends messages one after the other."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        await self._expect(220)
        await self._command(b"EHLO bench.example\r\n", 250)

    async def _expect(self, code: int) -> str:
        assert self.reader is not None
        got, text = await _reply(self.reader)
        if got != code:
            raise RuntimeError(f"expected {code}, got: {text.strip()}")
        return text

    async def _command(self, line: bytes, code: int) -> str:
        assert self.writer is not None
        self.writer.write(line)
        return await self._expect(code)

    async def send(self, sender: str, recipient: str, data: bytes) -> str:
        """Send one message (``data`` from :func:`dot_stuffed`); the text of the final
        ``250``."""
        await self._command(f"MAIL FROM:<{sender}>\r\n".encode(), 250)
        await self._command(f"RCPT TO:<{recipient}>\r\n".encode(), 250)
        await self._command(b"DATA\r\n", 354)
        return await self._command(data, 250)

    async def quit(self) -> None:
        if self.writer is None:
            return
        try:
            await self._command(b"QUIT\r\n", 221)
        finally:
            self.writer.close()
            await self.writer.wait_closed()


_IN_REPLY_TO = re.compile(rb"(?im)^In-Reply-To:[ \t]*(\S[^\r\n]*)")


class Sink:
    """A relay that takes every message and calls ``on_message(time.time(), In-Reply-To,
    connection number)`` for each (the header's value, or ``""``). Serve it with a stream
    limit above the largest message (``asyncio.start_server(..., limit=LIMIT)``): the
    message is read in one piece, up to its final ``.`` line."""

    LIMIT = 1 << 22

    def __init__(self, on_message: Callable[[float, str, int], None]) -> None:
        self.on_message = on_message
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        writer.write(b"220 relay.bench ESMTP\r\n")
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    writer.write(b"250-relay.bench\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n"
                                 b"250 SIZE 33554432\r\n")
                elif verb == b"DATA":
                    writer.write(b"354 go ahead\r\n")
                    try:
                        data = await reader.readuntil(b"\r\n.\r\n")
                    except asyncio.IncompleteReadError:
                        return
                    found = _IN_REPLY_TO.search(data.partition(b"\r\n\r\n")[0])
                    self.on_message(time.time(),
                                    found.group(1).decode("ascii", "replace") if found else "",
                                    number)
                    writer.write(b"250 OK\r\n")
                elif verb == b"QUIT":
                    writer.write(b"221 bye\r\n")
                    await writer.drain()
                    return
                else:  # MAIL, RCPT, RSET, NOOP
                    writer.write(b"250 OK\r\n")
                await writer.drain()
        except ConnectionError:
            return
        finally:
            writer.close()
