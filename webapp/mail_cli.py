"""``arbitre mail ...`` (beside the other commands of :mod:`webapp.cli`): run the intake, send
the outbox, poll IMAP, handle the quarantine.

Commands (French output, as for the arbitre):

* ``intake [--no-sender]`` — SMTP/LMTP listeners (``MAIL_SMTP_LISTEN``/``MAIL_LMTP_LISTEN``)
  and the outbox sender, until interrupted;
* ``send-outbox`` — send what is due once;
* ``imap-poll [--once]`` — fetch from ``IMAP_HOST`` (IDLE when offered);
* ``process-pending`` — process messages left ``stored`` by a crash;
* ``quarantine list | replay ID | discard ID [--motif TEXTE]``.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

import webapp
from mailer import pipeline
from mailer.imap import poll_forever, poll_once
from mailer.intake import start_embedded
from mailer.outbox import send_pending


def _app() -> Any:
    return webapp.create_app()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arbitre mail", description="Courriel : dépôt des "
                                     "feuilles, envoi des messages, quarantaine.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_intake = sub.add_parser("intake", help="écouter en SMTP/LMTP et envoyer la file")
    p_intake.add_argument("--no-sender", action="store_true",
                          help="ne pas lancer l'envoi de la file de sortie")
    sub.add_parser("send-outbox", help="envoyer une fois les messages en attente")
    p_imap = sub.add_parser("imap-poll", help="relever une boîte IMAP")
    p_imap.add_argument("--once", action="store_true", help="une seule relève")
    sub.add_parser("process-pending", help="traiter les messages restés « stored »")
    p_q = sub.add_parser("quarantine", help="messages en quarantaine")
    q_sub = p_q.add_subparsers(dest="action", required=True)
    q_sub.add_parser("list")
    p_replay = q_sub.add_parser("replay")
    p_replay.add_argument("id", type=int)
    p_discard = q_sub.add_parser("discard")
    p_discard.add_argument("id", type=int)
    p_discard.add_argument("--motif", default="")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)

    app = _app()
    if args.cmd == "intake":
        handle = start_embedded(app, sender=not args.no_sender)
        print(f"Dépôt des feuilles : écoute sur {', '.join(map(str, handle.ports))}",
              flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(1.0):
                pass
        except KeyboardInterrupt:
            pass
        handle.stop()
        return 0
    if args.cmd == "send-outbox":
        print(f"{send_pending(app)} message(s) envoyé(s)")
        return 0
    if args.cmd == "imap-poll":
        if args.once:
            print(f"{poll_once(app)} message(s) relevé(s)")
        else:
            poll_forever(app)
        return 0
    if args.cmd == "process-pending":
        print(f"{pipeline.process_pending(app)} message(s) traité(s)")
        return 0
    if args.action == "list":
        rows = pipeline.quarantined(app)
        if not rows:
            print("Aucun message en quarantaine.")
        for r in rows:
            print(f"n° {r.id}  reçu le {r.received_at:%d/%m/%Y %H:%M} UTC  de "
                  f"{r.envelope_from or '<>'}  ({r.size} octets) : {r.error}")
        return 0
    try:
        if args.action == "replay":
            status = pipeline.replay(app, args.id)
            print(f"Message n° {args.id} rejoué : {status}")
        else:
            pipeline.discard(app, args.id, args.motif)
            print(f"Message n° {args.id} écarté.")
    except (LookupError, ValueError) as exc:
        print(f"Erreur : {exc}", file=sys.stderr)
        return 1
    return 0
