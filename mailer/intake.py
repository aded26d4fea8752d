"""The SMTP/LMTP listener (aiosmtpd): the embedded default and the Postfix back end.

Owns the protocol answers:

* ``RCPT``: only the submission local part (``feuilles`` or ``feuilles+TOKEN``) is accepted,
  at any domain (Postfix decides which domains reach us); others get ``550``.
* ``MAIL ... SIZE=n`` above ``MAIL_MAX_SIZE``, or a message body above it: ``552``, and a
  polite notice to the envelope sender when it is a registered player (never to ``<>``).
* ``DATA``: the raw message is committed before the ``250``; if the database does not
  answer, ``451`` so the sending server retries. Messages arriving together are committed
  together (:class:`StoreBatcher`, group commit: one disk sync for all the waiting sessions).
* Processing (:mod:`mailer.pipeline`) runs after the ``250`` in :class:`Processor`
  threads, in batches, or on PostgreSQL with ``MAIL_PROCESS_WORKERS`` in worker processes
  of their own (:class:`ProcessWorkers`); its failures quarantine a message, they never
  lose it. A message stored but not yet processed when the process dies is picked up at
  the next start.

``start_embedded(app)`` is what ``arbitre serve`` calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import queue
import re
import threading
import time
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask
from sqlmodel import select

from mailer import parse, pipeline, rules
from mailer.flow import InFlow
from mailer.imap import start_poller
from mailer.outbox import OutboxWorker, Sender
from mailer.settings import MailSettings, host_port
from mailer.txn import write_scope
from webapp.db import get_engine
from webapp.models import InboundChannel, InboundMessage, InboundStatus, OutboxKind, Player
from webapp.services import clock
from webapp.services.notify import enqueue

log = logging.getLogger(__name__)

#: The protocol's own hard cap (aiosmtpd stops buffering beyond it); between MAIL_MAX_SIZE
#: and this, we read the message to answer 552 with a notice to the player.
HARD_CAP_FACTOR = 4


def _drain(q: queue.Queue[Any], batch: list[Any], limit: int) -> bool:
    """Add what is already waiting in ``q`` to ``batch`` (up to ``limit`` items) without
    blocking; True when the stop marker (``None``) was met."""
    while len(batch) < limit:
        try:
            nxt = q.get_nowait()
        except queue.Empty:
            return False
        if nxt is None:
            return True
        batch.append(nxt)
    return False


class StoreBatcher:
    """Commits raw messages for all waiting SMTP sessions together (group commit)."""

    def __init__(self, app: Flask, max_batch: int = 100, *, notify: bool = False) -> None:
        self.app = app
        self.max_batch = max_batch
        self.notify = notify  # NOTIFY the worker processes at each commit (PostgreSQL)
        self.last_activity = 0.0
        self._queue: queue.Queue[tuple[pipeline.Incoming, Future[int]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="arbitre-store", daemon=True)
        self._thread.start()

    def submit(self, item: pipeline.Incoming) -> Future[int]:
        fut: Future[int] = Future()
        self.last_activity = time.monotonic()
        self._queue.put((item, fut))
        return fut

    def busy(self, window: float = 0.02) -> bool:
        """Whether senders are waiting, or were a moment ago."""
        return not self._queue.empty() or time.monotonic() - self.last_activity < window

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            stop = _drain(self._queue, batch, self.max_batch)
            try:
                ids = pipeline.store_many(self.app, [item for item, _ in batch],
                                          notify=self.notify)
            except Exception as exc:
                for _, fut in batch:
                    fut.set_exception(exc)
            else:
                for (_, fut), inbound_id in zip(batch, ids, strict=True):
                    fut.set_result(inbound_id)
            if stop:
                return

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(30)


class Processor:
    """Runs the pipeline on stored messages, in batches, off the SMTP path.

    ``threads`` lanes, each a thread with its own queue; a message goes to the lane of its
    envelope sender, so one player's messages are processed in their order, by one lane.
    On PostgreSQL several lanes overlap their database round trips (the rows of a batch are
    locked by ``pipeline.process_batch``: two lanes never work on one message); on SQLite,
    which has one writer, there is one lane (``start_embedded``).

    Every ``sweep_seconds`` the first lane also looks for messages left ``stored`` (for
    instance when the database was briefly unavailable during processing).
    """

    def __init__(self, app: Flask, on_processed: Any = None, max_batch: int = 25,
                 sweep_seconds: float = 30.0, batcher: StoreBatcher | None = None,
                 threads: int = 1) -> None:
        self.app = app
        self.batcher = batcher
        self.on_processed = on_processed
        self.max_batch = max_batch
        self.sweep_seconds = sweep_seconds
        self._queues: list[queue.Queue[int | None]] = [queue.Queue()
                                                        for _ in range(max(1, threads))]
        self._pending = 0
        self._cond = threading.Condition()
        self._threads = [
            threading.Thread(target=self._run, args=(lane,), daemon=True,
                             name="arbitre-process" + (f"-{lane}" if lane else ""))
            for lane in range(len(self._queues))
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, inbound_id: int, key: str = "") -> None:
        """Queue a stored message; ``key`` (the envelope sender) chooses its lane."""
        with self._cond:
            self._pending += 1
        self._queues[self.lane(key)].put(inbound_id)

    def lane(self, key: str) -> int:
        """The lane of a sender: the same one for all his messages."""
        return zlib.crc32(key.lower().encode("utf-8", "replace")) % len(self._queues)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until everything submitted so far is processed (tests, shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending == 0, timeout)

    def _run(self, lane: int = 0) -> None:
        own = self._queues[lane]
        while True:
            try:
                first = own.get(timeout=self.sweep_seconds)
            except queue.Empty:
                if lane == 0:
                    self._safely(lambda: pipeline.process_pending(self.app))
                continue
            if first is None:
                return
            self._yield_to_intake()
            batch = [first]
            stop = _drain(own, batch, self.max_batch)
            self._safely(functools.partial(pipeline.process_batch, self.app, batch))
            if self.on_processed is not None:
                self.on_processed()
            with self._cond:
                self._pending -= len(batch)
                self._cond.notify_all()
            if stop:
                return

    def _yield_to_intake(self, longest: float = 0.05) -> None:
        # Intake first: a sender waits for our 250 with its connection open, whereas a
        # receipt a few hundred milliseconds later harms no one. Bounded, so a steady
        # stream of mail cannot postpone processing indefinitely.
        if self.batcher is None:
            return
        until = time.monotonic() + longest
        while self.batcher.busy() and time.monotonic() < until:
            time.sleep(0.01)

    @staticmethod
    def _safely(fn: Any) -> None:
        try:
            fn()
        except Exception:
            # Left "stored": the next sweep (or the next start) processes it.
            log.exception("processing pass failed")

    def stop(self) -> None:
        for own in self._queues:
            own.put(None)
        for thread in self._threads:
            thread.join(60)


#: ``app.extensions`` key of the application factory (set by the web package when it
#: builds the app): a worker process builds its own app with it from the parent's settings.
APP_FACTORY = "arbitre.app_factory"


def _listen(app: Flask, channel: str) -> Any:
    """A psycopg connection of its own (autocommit) listening on ``channel``."""
    import psycopg

    url = get_engine(app).url.set(drivername="postgresql")
    conn = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)
    conn.execute(f"LISTEN {channel}")
    return conn


#: How long a worker process lets messages gather after a short batch (seconds).
GATHER_SECONDS = 0.05


def _worker_main(factory: Any, config: dict[str, Any], stop: Any, ready: Any, lane: int,
                 lanes: int, batch: int, sweep_seconds: float) -> None:
    """A worker process: builds its app, then processes its lane's stored messages until
    none is left, sleeps until a NOTIFY (or ``sweep_seconds``), and again, until ``stop``."""
    import signal

    # the parent stops its workers itself (stop event, then join): a Ctrl-C in the terminal
    # must not interrupt one in the middle of a batch (it would only be rolled back, though)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    app = factory(config)
    listener = _listen(app, pipeline.STORED_CHANNEL)
    ready.set()
    try:
        while not stop.is_set():
            try:
                while not stop.is_set():
                    claimed = pipeline.process_claimed(app, lane=lane, lanes=lanes,
                                                       limit=batch)
                    if not claimed:
                        break
                    if claimed < batch:
                        # a short batch in a stream of mail: let a few more arrive, so the
                        # next transaction shares its fixed cost among more messages
                        stop.wait(GATHER_SECONDS)
            except Exception:
                # Left "stored": the next pass takes them again.
                log.exception("worker %d: processing pass failed", lane)
                stop.wait(1.0)
            for _ in listener.notifies(timeout=sweep_seconds, stop_after=1):
                pass
    finally:
        listener.close()


def _sender_main(factory: Any, config: dict[str, Any], stop: Any, ready: Any,
                 number: int) -> None:
    """A sender process (``OUTBOX_SENDER_PROCESSES``): builds its app, then sends the due
    outbox rows (:func:`mailer.outbox.send_due`: batches claimed ``FOR UPDATE SKIP
    LOCKED``, so each sender gets rows of its own) until none is left, sleeps until a
    NOTIFY on :data:`mailer.pipeline.QUEUED_CHANNEL` (or ``OUTBOX_POLL_SECONDS``), and
    again, until ``stop``. A NOTIFY that comes during a pass wakes the next sleep at once."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopped by its parent, as a worker
    app = factory(config)
    settings = MailSettings.from_config(app.config)
    listener = _listen(app, pipeline.QUEUED_CHANNEL)
    ready.set()
    try:
        # one event loop (and its thread pool) for the process's life, as OutboxWorker,
        # and its connections to the relay kept from pass to pass
        with asyncio.Runner() as runner:
            sender = Sender(app, settings, runner)
            try:
                while not stop.is_set():
                    try:
                        sender.send_pass()
                    except Exception:
                        # claimed rows left ``sending``: taken back (gone holder, or lease)
                        log.exception("sender %d: pass failed", number)
                        stop.wait(1.0)
                    for _ in listener.notifies(timeout=settings.poll_seconds, stop_after=1):
                        pass
                    with contextlib.suppress(Exception):
                        sender.close_idle()
            finally:
                with contextlib.suppress(Exception):
                    sender.close()
    finally:
        listener.close()


def notify_queued(app: Flask) -> None:
    """NOTIFY :data:`mailer.pipeline.QUEUED_CHANNEL`: mail was queued (wakes the sender
    processes)."""
    with get_engine(app).begin() as conn:
        conn.execute(sa.select(sa.func.pg_notify(pipeline.QUEUED_CHANNEL, "")))


def _picklable_config(app: Flask) -> dict[str, Any]:
    """The parent's settings a worker's app is built from (what cannot be pickled, such as
    objects set up at run time, is left out: the worker's own app makes its own)."""
    import pickle

    config: dict[str, Any] = {}
    for key, value in app.config.items():
        try:
            pickle.dumps(value)
        except Exception:
            continue
        config[key] = value
    config["INSTANCE_PATH"] = app.instance_path
    return config


class ProcessWorkers:
    """Processing in ``count`` worker processes of their own (PostgreSQL,
    ``MAIL_PROCESS_WORKERS``), off the serving process's interpreter lock, and the outbox
    sent by ``senders`` sender processes (``OUTBOX_SENDER_PROCESSES``, :func:`_sender_main`).

    Worker ``k`` takes the messages of the senders of lane ``k``
    (:func:`mailer.pipeline.lane_of`), in their order, claimed ``FOR UPDATE SKIP LOCKED``
    and processed in the claiming transaction (:func:`mailer.pipeline.process_claimed`),
    up to ``max_batch`` at a time: 100, so that a backlog shares each batch's fixed
    statements among more sheets (what is there is taken at once: a short batch waits for
    no more than :data:`GATHER_SECONDS`).
    The intake's commits NOTIFY the workers; the workers' commits NOTIFY this process,
    whose watcher thread wakes the outbox sender (``on_processed``) and restarts a worker
    or a sender that died (a worker's uncommitted batch stays ``stored``: the restarted
    worker takes it again; a sender's claimed rows stay ``sending`` under its name, and
    the next claim on this host takes them back, :mod:`mailer.holder`).
    """

    def __init__(self, app: Flask, factory: Any, count: int, on_processed: Any = None,
                 max_batch: int = 100, sweep_seconds: float = 1.0, senders: int = 0) -> None:
        import multiprocessing

        self.app = app
        self.factory = factory
        self.count = count
        self.on_processed = on_processed
        self.max_batch = max_batch
        self.sweep_seconds = sweep_seconds
        self._ctx = multiprocessing.get_context("spawn")
        self._config = _picklable_config(app)
        self._stop = self._ctx.Event()
        #: each process's name, main function and its own arguments: the workers' lanes,
        #: then the senders
        self._roles: list[tuple[str, Any, tuple[Any, ...]]] = [
            (f"arbitre-process-{lane}", _worker_main,
             (lane, count, max_batch, sweep_seconds)) for lane in range(count)
        ] + [(f"arbitre-sender-{k}", _sender_main, (k,)) for k in range(senders)]
        self._ready: dict[int, Any] = {}
        self._procs = [self._spawn(slot) for slot in range(len(self._roles))]
        self._listener = _listen(app, pipeline.QUEUED_CHANNEL)
        self._watcher = threading.Thread(target=self._watch, name="arbitre-process-watch",
                                         daemon=True)
        self._watcher.start()

    def _spawn(self, slot: int) -> Any:
        name, main, args = self._roles[slot]
        ready = self._ctx.Event()
        proc = self._ctx.Process(
            target=main, name=name, daemon=True,
            args=(self.factory, self._config, self._stop, ready, *args))
        proc.start()
        self._ready[slot] = ready  # set once the process has built its app and listens
        return proc

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until every process has built its app and listens (about 2 s: each
        imports the whole application); True when all are ready in time."""
        deadline = time.monotonic() + timeout
        return all(ready.wait(max(0.0, deadline - time.monotonic()))
                   for ready in self._ready.values())

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids, lane by lane (operations, tests)."""
        return [int(proc.pid) for proc in self._procs[:self.count]]

    @property
    def sender_pids(self) -> list[int]:
        """The sender processes' ids (operations, tests)."""
        return [int(proc.pid) for proc in self._procs[self.count:]]

    def submit(self, inbound_id: int, key: str = "") -> None:
        """Nothing to queue: the commit that stored the message woke the workers."""

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                woken = any(True for _ in self._listener.notifies(
                    timeout=self.sweep_seconds, stop_after=1))
            except Exception:
                if self._stop.is_set():
                    return
                # the connection is gone (database restarted…): listen on a new one, and
                # still look after the workers below — a dead one must be restarted
                log.exception("worker watcher: listening failed")
                woken = False
                time.sleep(self.sweep_seconds)
                try:
                    self._listener.close()
                    self._listener = _listen(self.app, pipeline.QUEUED_CHANNEL)
                except Exception:
                    log.warning("worker watcher: cannot listen again yet")
            if woken and self.on_processed is not None:
                self.on_processed()
            for slot, proc in enumerate(self._procs):
                if not proc.is_alive() and not self._stop.is_set():
                    log.error("mail process %s ended (exit code %s): restarting it",
                              self._roles[slot][0], proc.exitcode)
                    self._procs[slot] = self._spawn(slot)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no message is left ``stored`` (tests, benches, shutdown)."""
        deadline = time.monotonic() + timeout
        while True:
            with write_scope(self.app) as session:
                left = session.execute(
                    sa.select(sa.func.count()).select_from(InboundMessage)
                    .where(InboundMessage.status == InboundStatus.STORED)  # type: ignore[arg-type]
                ).scalar_one()
            if not left:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        for proc in self._procs:
            proc.join(60)
            if proc.is_alive():
                proc.terminate()
                proc.join(10)
        self._watcher.join(10)
        self._listener.close()


class IntakeHandler:
    """aiosmtpd handler: RCPT filter, size limit, store-then-250, then the pipeline."""

    def __init__(self, app: Flask, channel: InboundChannel, executor: ThreadPoolExecutor,
                 batcher: StoreBatcher, processor: Processor | ProcessWorkers,
                 flow: InFlow | None = None) -> None:
        self.app = app
        self.channel = channel
        self.settings = MailSettings.from_config(app.config)
        self.executor = executor
        self.batcher = batcher
        self.processor = processor
        self.flow = flow
        local = re.escape(self.settings.submit_localpart)
        self._rcpt = re.compile(rf"^{local}(\+[A-Za-z0-9_-]{{1,64}})?@[^@\s]+$", re.I)

    async def handle_MAIL(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, mail_options: list[str]) -> str:
        for option in mail_options:
            if option.upper().startswith("SIZE="):
                size = option.split("=", 1)[1]
                if size.isdigit() and int(size) > self.settings.max_size:
                    await self._notify_too_large(address, int(size), "")
                    return self._too_large(int(size))
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, rcpt_options: list[str]) -> str:
        if not self._rcpt.match(address):
            return "550 5.1.1 Adresse inconnue : écrivez à l'adresse de dépôt des feuilles"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    def _too_large(self, size: int) -> str:
        limit_mb = self.settings.max_size / (1024 * 1024)
        return (f"552 5.3.4 Message trop volumineux ({size} octets) : limite "
                f"{limit_mb:.0f} Mo. Une feuille de route tient en quelques lignes de texte.")

    async def _notify_too_large(self, envelope_from: str, size: int, subject: str) -> None:
        if not envelope_from or envelope_from == "<>":
            return
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self.executor, _notice_too_large, self.app,
                                       self.settings, envelope_from, size, subject)
        except Exception:
            log.exception("could not queue the size notice for %s", envelope_from)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if len(raw) > self.settings.max_size:
            subject = parse.header(parse.parse_message(raw[:65536]), "Subject")
            await self._notify_too_large(envelope.mail_from or "", len(raw), subject)
            return self._too_large(len(raw))
        item = pipeline.Incoming(
            raw=raw, channel=self.channel,
            # MAIL FROM:<> arrives as "": store the null sender explicitly.
            envelope_from=envelope.mail_from or "<>",
            envelope_to=list(envelope.rcpt_tos), received_at=clock.now(),
        )
        try:
            inbound_id = await asyncio.wrap_future(self.batcher.submit(item))
        except Exception as exc:
            log.warning("intake: database unavailable, answering 451: %s", exc)
            return self._per_rcpt(envelope, "451 4.3.0 Erreur temporaire du serveur : "
                                            "réessayez plus tard")
        self.processor.submit(inbound_id, item.envelope_from)
        if self.flow is not None:
            # stored and stamped: only the answer waits, for the work accepted before
            await self.flow.admit()
        return self._per_rcpt(envelope, f"250 2.0.0 Message reçu (n° {inbound_id})")

    def _per_rcpt(self, envelope: Envelope, status: str) -> str:
        # LMTP answers once per recipient after DATA; one stored copy serves them all.
        if self.channel == InboundChannel.LMTP:
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status


def _notice_too_large(app: Flask, settings: MailSettings, envelope_from: str, size: int,
                      subject: str) -> None:
    with app.app_context(), write_scope(app) as session:
        player = session.exec(
            select(Player).where(sa.func.lower(Player.email) == envelope_from.lower())
        ).first()
        if player is None:
            return  # strangers get the 552 from their own server, not a notice from us

        now = clock.now()
        if rules.rate_limit_exceeded(pipeline._recent_replies(session, player.email, now),
                                     now, per_hour=settings.reply_rate_per_hour):
            return
        enqueue(session=session, kind=OutboxKind.REFUSED_TOO_LARGE, to_addr=player.email,
                template="refused_too_large",
                context={"player_name": player.name, "size": size,
                         "limit": settings.max_size, "original_subject": subject or None},
                player_id=player.id, headers={"Auto-Submitted": "auto-replied"})


class _Controller(Controller):
    def __init__(self, handler: IntakeHandler, *, lmtp: bool, hostname: str, port: int,
                 data_size_limit: int) -> None:
        self._lmtp = lmtp
        self._limit = data_size_limit
        super().__init__(handler, hostname=hostname, port=port)

    def factory(self) -> SMTP:
        cls = LMTP if self._lmtp else SMTP
        return cls(self.handler, data_size_limit=self._limit, enable_SMTPUTF8=True,
                   decode_data=False, ident="Arbitre feuilles de route")


@dataclass
class IntakeHandle:
    """What :func:`start_embedded` returns: listeners, store/process threads, outbox worker."""

    controllers: list[Controller] = field(default_factory=list)
    worker: OutboxWorker | None = None
    executor: ThreadPoolExecutor | None = None
    batcher: StoreBatcher | None = None
    processor: Processor | ProcessWorkers | None = None
    #: the in-flow control shared by the listeners (:mod:`mailer.flow`)
    flow: InFlow | None = None
    #: the sender processes' supervisor (``OUTBOX_SENDER_PROCESSES``): the processor itself
    #: when the processing is in worker processes too
    senders: ProcessWorkers | None = None
    imap: tuple[threading.Thread, threading.Event] | None = None

    @property
    def ports(self) -> list[int]:
        return [int(c.port) for c in self.controllers]

    def wait_idle(self, timeout: float = 30.0) -> bool:
        return self.processor.wait_idle(timeout) if self.processor is not None else True

    def stop(self) -> None:
        for c in self.controllers:
            c.stop()
        if self.flow is not None:
            self.flow.stop()
        if self.imap is not None:
            self.imap[1].set()
            self.imap[0].join(30)
        if self.batcher is not None:
            self.batcher.stop()
        if self.processor is not None:
            self.processor.stop()
        if self.senders is not None and self.senders is not self.processor:
            self.senders.stop()
        if self.worker is not None:
            self.worker.stop()
        if self.executor is not None:
            self.executor.shutdown(wait=True)


def start_listener(app: Flask, listen: str, *, lmtp: bool, executor: ThreadPoolExecutor,
                   batcher: StoreBatcher, processor: Processor | ProcessWorkers,
                   flow: InFlow | None = None) -> Controller:
    settings = MailSettings.from_config(app.config)
    host, port = host_port(listen, 24 if lmtp else 25)
    channel = InboundChannel.LMTP if lmtp else InboundChannel.SMTP
    handler = IntakeHandler(app, channel, executor, batcher, processor, flow)
    controller = _Controller(handler, lmtp=lmtp, hostname=host, port=port,
                             data_size_limit=settings.max_size * HARD_CAP_FACTOR)
    try:
        controller.start()
    except BaseException:
        # a port already taken: aiosmtpd leaves its thread's event loop open; close it here
        # (and the loop's sockets with it) rather than leave them to the garbage collector
        thread = controller._thread
        if thread is not None:
            thread.join(30)
        if not controller.loop.is_running() and not controller.loop.is_closed():
            controller.loop.close()
        raise
    return controller


def start_embedded(app: Flask, *, sender: bool = True) -> IntakeHandle:
    """Start the configured listeners (SMTP and/or LMTP), the IMAP poller when ``IMAP_HOST``
    is set, and the outbox sender. Messages left ``stored`` by an earlier crash are
    processed first. Returns a handle with ``.stop()``.
    """
    settings = MailSettings.from_config(app.config)
    executor = ThreadPoolExecutor(max_workers=settings.workers,
                                  thread_name_prefix="arbitre-intake")
    handle = IntakeHandle(executor=executor)
    try:
        pipeline.process_pending(app)
    except Exception:
        log.exception("could not process pending messages at start-up")
    postgresql = get_engine(app).dialect.name == "postgresql"
    factory = app.extensions.get(APP_FACTORY)
    if settings.process_workers and not postgresql:
        log.warning("MAIL_PROCESS_WORKERS needs PostgreSQL: processing in threads")
    elif settings.process_workers and factory is None:
        log.warning("MAIL_PROCESS_WORKERS: no application factory: processing in threads")
    if sender and settings.sender_processes and not (postgresql and factory is not None):
        log.warning("OUTBOX_SENDER_PROCESSES needs PostgreSQL: one sender thread")
    workers = settings.process_workers if postgresql and factory is not None else 0
    senders = (settings.sender_processes
               if sender and postgresql and factory is not None else 0)
    wake: Any = None
    if sender and not senders:
        handle.worker = OutboxWorker(app).start()
        wake = handle.worker.wake
    elif senders:
        # the sender processes listen for this NOTIFY (the processing threads' wake-up)
        wake = functools.partial(notify_queued, app)
    handle.batcher = StoreBatcher(app, notify=bool(workers))
    supervisor = None
    if workers or senders:
        # the worker processes' commits NOTIFY the senders themselves
        supervisor = ProcessWorkers(app, factory, workers, senders=senders,
                                    on_processed=None if senders else wake)
        if not supervisor.wait_ready():
            # what they miss stays stored or pending: taken when they are up
            log.warning("mail worker or sender processes not ready after 60 s")
        handle.senders = supervisor if senders else None
    processor: Processor | ProcessWorkers
    if supervisor is not None and workers:
        processor = supervisor
    else:
        # one writer on SQLite: more lanes would only take turns on its lock
        lanes = settings.process_threads if postgresql else 1
        processor = Processor(app, on_processed=wake, batcher=handle.batcher, threads=lanes)
    handle.processor = processor
    if settings.in_flow_delay > 0:
        handle.flow = InFlow.for_app(app, limit=settings.in_flow_backlog,
                                     delay=settings.in_flow_delay)
    try:
        for listen, lmtp in ((settings.smtp_listen, False), (settings.lmtp_listen, True)):
            if listen:
                handle.controllers.append(start_listener(
                    app, listen, lmtp=lmtp, executor=executor, batcher=handle.batcher,
                    processor=processor, flow=handle.flow))
    except BaseException:
        handle.stop()  # a port already taken: stop the threads started above, then tell
        raise
    if settings.imap_host:
        handle.imap = start_poller(app)
    return handle
