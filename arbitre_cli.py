"""The ``arbitre`` command: dispatches to each part's own command line.

``arbitre engine ...`` (scoring), ``arbitre problem|verify|rank|solve|duplicate|correspondance
...`` (puzzles),
``arbitre serve|db|...`` (webapp), ``arbitre mail ...`` (mailer). ``arbitre --help`` lists them
all in French (tests/test_arbitre_help.py checks it against the parsers).
"""

from __future__ import annotations

import sys

USAGE = """utilisation : arbitre COMMANDE ...

Moteur de jeu :
  engine moves|score         coups possibles d'un tirage et le top ; verdict d'un coup

Problèmes et feuilles de route :
  problem new                tirer un nouveau problème
  verify                     vérifier une feuille de route contre un problème
  rank                       classer plusieurs feuilles
  solve                      calculer une solution de référence
  duplicate replay           rejouer une partie de Duplicate FISF et corriger ses bulletins
  correspondance replay      reconstituer une partie par correspondance depuis sa fiche

Serveur :
  serve                      lancer le serveur (pages, calendrier, réception du courriel)
  db upgrade|current         migrer la base / afficher sa révision
  seed-demo                  créer le championnat de démonstration
  create-arbitre NOM         créer un compte d'arbitre
  login-link NOM             afficher un lien de connexion à usage unique pour un arbitre

Courriel :
  mail intake                écouter en SMTP/LMTP et envoyer la file de sortie
  mail send-outbox           envoyer une fois les messages en attente
  mail imap-poll             relever une boîte IMAP
  mail process-pending       traiter les messages restés « stored »
  mail quarantine list|replay ID|discard ID
                             messages en quarantaine : lister, rejouer, écarter

Par Flask (flask --app webapp COMMANDE) :
  import-players FICHIER.csv importer des joueurs (nom, club, courriel)
  db-upgrade                 comme « arbitre db upgrade »
  seed-demo, create-arbitre, login-link : comme ci-dessus

« arbitre COMMANDE --help » détaille les options d'une commande.
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    cmd, rest = args[0], args[1:]
    if cmd == "engine":
        from scoring.cli import main as engine_main

        return engine_main(rest)
    if cmd in ("problem", "verify", "rank", "solve"):
        from puzzles.cli import main as puzzles_main

        return puzzles_main(args)
    if cmd == "duplicate":
        from puzzles.duplicate_cli import main as duplicate_main

        return duplicate_main(rest)
    if cmd == "correspondance":
        from puzzles.correspondence_cli import main as correspondence_main

        return correspondence_main(rest)
    if cmd == "mail":
        from webapp.mail_cli import main as mail_main

        return mail_main(rest)
    from webapp.cli import main as web_main

    return web_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
