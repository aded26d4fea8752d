"""The French messages of the pure packages (sheet errors of ``puzzles.feuille``, verdict
reasons of ``puzzles.verify``, placement errors of ``scoring``, game names) and the labels
the Python code gives the pages, in the reader's language.

``puzzles/`` and ``scoring/`` stay pure and write French; this table lists their messages as
catalogue msgids (French, with ``%(name)s`` where the message carries a value), marked with
:func:`N_` so that ``pybabel extract`` puts them in ``webapp/translations``. At the page or
mail boundary, :func:`translate` recognises a message against the table and returns the
catalogue's translation with the same values; a message made of several sentences is
translated sentence by sentence; what the table does not know stays French.

No Flask here: the pages pass Flask-Babel's ``gettext``, the mails :mod:`mailer.compose`'s
catalogue.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache


def N_(message: str) -> str:  # noqa: N802 - the usual name of the no-op marker
    """Mark ``message`` for extraction without translating it here."""
    return message


#: the messages, most frequent first within each source
MESSAGES: tuple[str, ...] = (
    # puzzles.feuille (the sheet parser)
    N_("La feuille ne contient aucun coup lisible."),
    N_("numéro de coup manquant (lu comme le coup %(number)s)."),
    N_("« Passe » ne s'accompagne d'aucun mot."),
    N_("trop de champs : attendu lettres, référence, mot, score, cumul."),
    N_("mot manquant après la référence."),
    N_("coup illisible : attendu numéro, lettres, référence (H8 ou 8H), mot, score, cumul."),
    N_("référence manquante ou illisible (attendu par exemple H8 pour un mot horizontal, 8H "
       "pour un mot vertical)."),
    N_("lettres utilisées « %(letters)s » illisibles (attendu des lettres, ? pour un joker)."),
    N_("nombres en trop (%(numbers)s) : attendu seulement score et cumul."),
    N_("ligne illisible « %(line)s » : attendu un coup (numéro, lettres, référence, mot, "
       "score, cumul) ou un en-tête (Joueur: …)."),
    N_("nombre inattendu « %(number)s » avant le mot."),
    N_("deux numéros de groupe (%(first)s et %(second)s)."),
    N_("date d'envoi « %(value)s » illisible (attendu par exemple 2000-05-12T18:55:00+03:00)."),
    N_("rangée illisible (attendu des lettres, ? pour un joker)."),
    N_("groupe %(number)s illisible (attendu des lettres)."),
    N_("groupes donnés deux fois (« Groupes: » et « Groupe N: »)."),
    N_("les groupes doivent être numérotés de 1 à 15 sans trou."),
    # scoring (notation and placement)
    N_("Mot « %(word)s » : caractère inattendu « %(char)s »."),
    N_("Référence « %(ref)s » : la colonne %(col)s n'existe pas (1 à 15)."),
    N_("Le premier mot doit couvrir la case centrale %(square)s."),
    N_("Le premier mot doit être horizontal."),
    N_("Le mot ne touche aucune lettre déjà sur la grille."),
    N_("Le mot %(word)s n'est pas admis."),
    N_("Le mot secondaire %(word)s n'est pas admis."),
    N_("La case %(square)s est déjà occupée."),
    N_("Le mot a un trou en %(square)s."),
    N_("Aucune lettre posée."),
    # puzzles.verify (the verdict of each move)
    N_("Erreur de placement : %(reason)s"),
    N_("Erreur de mot : %(word)s n'est pas admis."),
    N_("Erreur de mot de raccord : %(word)s n'est pas admis."),
    N_("Erreur de mot de raccord : %(word)s (formé par %(main)s en %(ref)s) n'est pas admis."),
    N_("Mot manquant ou illisible."),
    N_("Référence ou mot manquant."),
    N_("Placement impossible."),
    N_("Passer n'est pas permis dans cette partie."),
    N_("Pas de scrabble à ce coup : le joueur sort du jeu."),
    N_("Pas de scrabble valable : le joueur sort du jeu."),
    N_("Le joueur est sorti du jeu au coup %(move)s."),
    N_("Le coup %(move)s ne peut pas être annulé (pas encore joué)."),
    N_("Annulé par le joueur au coup %(move)s."),
    N_("« Annuler coup(s) » n'existe qu'en Anticipation : l'annulation est ignorée."),
    N_("Coup non joué : la rangée a été rompue au coup %(move)s."),
    N_("Le coup et toute la suite de la solution sont annulés."),
    N_("Pénalité de %(points)s points."),
    N_("%(count)s lettres posées : 7 au plus par coup."),
    N_("lettres utilisées non indiquées."),
    N_("lettres écrites %(written)s, lettres posées sur la grille %(placed)s."),
    N_("score non indiqué."),
    N_("score écrit %(written)s, score exact %(exact)s."),
    N_("cumul non indiqué."),
    N_("cumul écrit %(written)s, cumul exact %(exact)s."),
    N_("cumul écrit %(written)s, attendu %(expected)s (cumul précédent %(previous)s + score "
       "écrit %(claimed)s)."),
    N_("somme des deux scores du coup 1 non indiquée."),
    N_("Zéro en cascade : le coup s'appuie sur le coup %(move)s qui ne compte pas."),
    N_("Le scrabble s'appuie sur un mot de construction qui ne compte pas."),
    N_("Sans les mots de construction qui ne comptent pas, ce scrabble n'aurait pas pu être "
       "placé."),
    N_("scrabble non valable."),
    N_("Aucun groupe disponible pour ce coup."),
    N_("Plus de coups que de groupes."),
    N_("Au premier coup, deux mots au plus (groupe 1 puis le groupe tiré)."),
    N_("Coup %(move)s : un seul mot par coup."),
    N_("Coup %(move)s : une Anticipation se joue en 14 coups."),
    N_("Le groupe %(group)s n'existe pas (1 à %(count)s)."),
    N_("Le groupe %(group)s a déjà été joué."),
    N_("groupe %(written)s écrit, l'ordre imposé est le %(expected)s."),
    N_("La rangée recopiée sur la feuille diffère de la rangée affichée ; la rangée affichée "
       "fait foi."),
    N_("La liste « Scrabbles » ne sert que dans les Superscrabble ; ignorée."),
    N_("La feuille annonce le problème « %(announced)s », vérifiée contre « %(problem)s »."),
    N_("Avertissement : %(warning)s"),
    N_("Avertissements : %(warnings)s"),
    # webapp.services.submissions: a sheet refused (the page's error, the « refused » mail)
    N_("Vous n'êtes pas inscrit à la compétition « %(competition)s » : vos feuilles pour le "
       "problème « %(problem)s » ne peuvent pas être acceptées. Demandez votre inscription à "
       "l'arbitre."),
    N_("Trop de feuilles envoyées en peu de temps : au plus %(limit)s par %(duration)s. Votre "
       "feuille n'a pas été enregistrée ; renvoyez-la dans un moment."),
    N_("Le problème « %(problem)s » n'est pas encore publié : les feuilles seront acceptées à "
       "partir de sa publication, le %(date)s."),
    # the countdown written by the server (webapp.views.helpers.remaining)
    N_("Délai écoulé"),
    N_("Il reste %(days)s j %(hours)s h %(minutes)s min"),
    N_("Il reste %(hours)s h %(minutes)s min"),
    # names the pages show: the games (puzzles.families labels) and the statuses
    # (webapp.views.helpers.STATUS_FR)
    N_("Scrabble intégral"), N_("Intégral partiel"), N_("Intégral sur rangée de lettres"),
    N_("Anticipation"), N_("Anticipation avocalique"), N_("Scrabble exclusif – résistance"),
    N_("Scrabble exclusif – fond"), N_("Anticipation aveugle"), N_("Série de maximaux"),
    N_("Série de maximaux (consonnes annoncées)"), N_("Superscrabble incomplet"),
    N_("N-Scrabble (consonnes annoncées)"), N_("Partie de Superscrabble"),
    # the text report (puzzles.verify.report.Report.to_text), line by line: report_text
    N_("Problème %(problem)s — %(game)s"), N_("Joueur : %(player)s"), N_("Envoyé : %(sent)s"),
    N_("Lexique : %(lexicon)s (%(count)s mots, sha256 %(sha256)s)"),
    N_("Réglages modifiés : %(settings)s"), N_("Total : %(total)s %(unit)s"),
    N_("Pénalité : %(penalty)s %(unit)s"), N_("Scores par coup : %(scores)s"),
    N_("Lettres de construction : %(count)s"), N_("Éliminé au coup %(move)s"),
    N_("Score final : %(score)s %(unit)s"), N_("annule les coups %(moves)s"),
    N_("avertissement : %(warning)s"), N_("Scrabbles :"),
    N_("points"), N_("scrabbles"),
    # how warnings count on a problem (puzzles.problem.Problem.warning_rule)
    N_("%(points)s points de pénalité par avertissement technique à partir du %(start)se."),
    N_("%(points)s points de pénalité par avertissement technique à partir du %(start)se "
       "(partie originale)."),
    N_("Un point de classement au 4e avertissement technique, puis un de plus tous les 3 "
       "avertissements."),
    N_("Départage : un point de classement au 4e avertissement technique, puis un de plus "
       "tous les 3 avertissements."),
    # the championship rule in words (puzzles.championship.describe)
    N_("Total des scores corrigés obtenus à chaque problème."),
    N_("Total des pourcentages obtenus à chaque problème, la référence du problème "
       "(solution de l'arbitre, sinon la meilleure feuille) valant 100 %."),
    N_("Points FRSc par place, additionnés sur les problèmes ; pour une épreuve de valeur "
       "100 : %(table)s (proportionnels à la valeur de l'épreuve)."),
    N_("Au-delà de la 10e place, aucun point."),
    N_("Au-delà de la 10e place, %(step)s points de moins par place (valeur 100), jusqu'à 0."),
    N_("Des joueurs ex aequo à un problème se partagent la moyenne des points des places "
       "qu'ils occupent."),
    N_("Des joueurs ex aequo à un problème reçoivent les points de leur place publiée (la "
       "feuille reçue la première devant)."),
    N_("Un problème non joué compte 0."),
    N_("Seuls les %(best_of)s meilleurs résultats de chaque joueur comptent ; les autres "
       "sont entre parenthèses."),
    N_("À total égal, passe devant le joueur qui a joué le plus de problèmes, puis celui qui "
       "a le meilleur résultat (puis le deuxième, etc.)."),
    N_("À total égal, les joueurs partagent la place."),
    # a Duplicate bulletin (views.duplicate, puzzles.duplicate.parse_bulletin,
    # services.duplicate.bulletins)
    N_("Le bulletin est vide : écrivez par exemple « H4 RESTAIt 70 »."),
    N_("Bulletin reçu après la clôture du tour : il est conservé et marqué hors délai ; il ne "
       "compte pas."),
    N_("Bulletin reçu mais illisible : %(reason)s Renvoyez-le corrigé avant la clôture."),
    N_("Bulletin reçu. Un accusé de réception vous est aussi envoyé par courriel."),
    N_("Bulletin vide : écrivez la référence, le mot et le score (ex. « H4 RESTAIt 70 »)."),
    N_("Deux scores sur le bulletin : %(first)s et %(second)s."),
    N_("Deux références sur le bulletin : %(first)s et %(second)s."),
    N_("« %(token)s » n'est ni une référence (H4, 4H), ni un mot, ni un score."),
    N_("Le mot joué manque."),
    N_("Trop de mots (%(words)s) : écrivez au plus le raccord puis le mot joué."),
    N_("Raccord « %(raccord)s » : trois lettres de raccord au minimum."),
    N_("« %(token)s » : une lettre de raccord à sa place s'écrit LETTRE@colonnes,lignes "
       "comptées depuis la première lettre du mot (ex. « O@+1,+1 » : une case à droite, une "
       "case plus bas)."),
    N_("« %(token)s » : la lettre de raccord tombe hors de la grille."),
    N_("« %(token)s » : la case %(square)s porte déjà la lettre de raccord %(letter)s."),
    N_("Raccord écrit de deux façons (%(raccord)s et %(placed)s) : écrivez soit les lettres "
       "suivies avant le mot, soit chaque lettre à sa place."),
    N_("« %(token)s » : la case 0,0 est celle de la première lettre du mot (%(first)s), pas "
       "%(letter)s."),
    N_("Score « %(score)s » : au plus %(digits)s chiffres."),
    N_("Solution n° %(number)s : %(reason)s"),
    N_("Ligne %(line)s : %(reason)s"),
    N_("Cumul « %(total)s » illisible."),
    N_("Nombre de scrabbles « %(count)s » illisible."),
    N_("Feuille de Superscrabble : écrivez chaque scrabble une fois, séparés par des "
       "virgules ; « / » n'y a pas de sens (ex. « H4 RESTAIT, 8C RESTAIT ; 2 »)."),
    N_("Bulletin illisible : il est conservé et l'arbitre l'examinera."),
    # the bounds of a bulletin (services.duplicate.bulletins, issue 24 §3)
    N_("Bulletin trop long : %(length)s caractères sur sa ligne, au plus %(most)s. Un "
       "bulletin tient en une ligne (ex. « H4 RESTAIt 70 ») ; il n'a pas été enregistré."),
    N_("Message trop long : %(length)s caractères, au plus %(most)s. Il n'a pas été "
       "enregistré ; renvoyez le bulletin seul, sur une ligne."),
    N_("Trop de solutions sur le bulletin : %(count)s, au plus %(most)s. Il n'a pas été "
       "enregistré."),
    N_("Vous avez déjà envoyé %(count)s bulletins pour le tour %(number)s : au plus "
       "%(most)s par tour. Celui-ci n'a pas été enregistré ; le dernier reçu compte."),
    N_("Trop de bulletins envoyés en peu de temps : au plus %(limit)s par %(window)s. Votre "
       "bulletin n'a pas été enregistré ; renvoyez-le dans un moment."),
    N_("Vous n'êtes pas inscrit à la partie « %(title)s » (%(code)s)."),
    N_("La partie « %(title)s » (%(code)s) n'a pas encore commencé : le premier tirage sera "
       "publié le %(date)s."),
    # a move of the two-player correspondence game (services.correspondence,
    # puzzles.correspondence, views.correspondence)
    N_("Coup joué : %(score)s points."),
    N_("Coup illisible : écrivez la référence et le mot (« H8 MOT ») ou « passe »."),
    N_("Référence illisible : « %(ref)s »."),
    N_("La partie %(code)s est terminée : %(reason)s"),
    N_("Vous ne jouez pas la partie %(code)s."),
    N_("Ce n'est pas votre tour : votre adversaire doit jouer."),
    N_("La partie n'a pas encore commencé : premier coup à partir du %(date)s."),
    N_("Coup reçu après le délai et sa tolérance : la partie est perdue au temps."),
    N_("Coup incomplet : la référence et le mot, ou « passe »."),
    N_("%(colour)s : %(word)s en %(ref)s refusé — %(reason)s"),
    N_("%(colour)s : %(word)s en %(ref)s demande des lettres absentes du chevalet %(rack)s."),
    N_("mot non admis : %(word)s"), N_("coup illégal"), N_("Rouge"), N_("Bleu"),
    # the correction of a Duplicate bulletin (puzzles.duplicate, puzzles.variants: each
    # verdict's reason, the top's reason) and its verdict kinds (issue 22 §5)
    N_("Valide."), N_("Pas de bulletin : zéro."), N_("Pas de billet : zéro."),
    N_("Second mot absent."),
    N_("Nul : le mot %(word)s n'est pas admis."),
    N_("Nul : %(word)s en %(ref)s forme le mot non admis %(bad)s."),
    N_("Nul : %(word)s en %(ref)s demande des lettres absentes du tirage %(rack)s."),
    N_("Nul : %(word)s en %(ref)s — %(reason)s"),
    N_("Nul : le mot %(word)s ne peut être placé sur la grille avec le tirage %(rack)s."),
    N_("Nul : mot illisible « %(word)s »."),
    N_("Nul : bulletin illisible — %(reason)s"),
    N_("Nul : en %(ref)s, le mot forme le mot non admis %(bad)s."),
    # (the longer message first: its value « sense » would otherwise take the parenthesis)
    N_("Nul : %(what)s et le score %(claimed)s ne correspond à aucun emplacement du mot "
       "écrit %(sense)s (il correspond à un emplacement %(other)s, mais le mot n'est pas "
       "écrit dans ce sens)."),
    N_("Nul : %(what)s et le score %(claimed)s ne correspond à aucun emplacement du mot "
       "écrit %(sense)s."),
    N_("Nul : %(count)s lettre(s) choisie(s), %(most)s au plus."),
    N_("Nul : en Métagramme, la lettre rendue et la lettre choisie vont ensemble (« -A +T »)."),
    N_("Nul : en Elliptique, un coup pose au plus %(most)s lettres (%(word)s en pose "
       "%(count)s)."),
    N_("Nul : la lettre rendue %(letter)s n'est pas dans le tirage %(rack)s."),
    N_("Nul : la lettre choisie %(letter)s n'est plus dans le stock."),
    N_("Nul : la lettre %(letter)s n'est plus dans le stock et il ne reste aucun joker."),
    N_("Valeur de la lettre hors stock déduite : −%(points)s."),
    N_("Mot 1 : %(reason)s"), N_("Mot 2 : %(reason)s"),
    N_("%(count)s solutions sur le bulletin, aucune n'est valable."),
    N_("%(count)s solutions sur le bulletin ; retenue : %(ref)s %(word)s."),
    N_("Pénalité de %(points)s points : %(what)s, le score %(claimed)s correspond à un "
       "emplacement valable."),
    N_("Pénalité de %(points)s points : %(what)s, le score %(claimed)s correspond à un "
       "emplacement valable (%(places)s emplacements possibles)."),
    N_("Pénalité de %(points)s points : %(what)s, le score %(claimed)s correspond à un "
       "emplacement valable ; %(score)s − %(penalty)s ramené à 0."),
    N_("Pénalité de %(points)s points : %(what)s, le score %(claimed)s correspond à un "
       "emplacement valable (%(places)s emplacements possibles) ; %(score)s − %(penalty)s "
       "ramené à 0."),
    N_("Pénalité de %(points)s points : dernière lettre du mot %(word)s absente ou modifiée "
       "alors qu'elle est déjà sur la grille."),
    N_("Pénalité de %(points)s points : dernière lettre du mot %(word)s absente ou modifiée "
       "alors qu'elle est déjà sur la grille ; %(score)s − %(penalty)s ramené à 0."),
    N_("référence erronée"), N_("référence absente ou illisible"),
    N_("référence %(ref)s ambiguë (le mot s'y place pour %(scores)s points)"),
    N_("horizontalement"), N_("verticalement"),
    N_("raccord %(raccord)s incorrect (la référence %(ref)s est juste)"),
    N_("référence %(ref)s erronée (le raccord %(raccord)s est juste)"),
    N_("lettre de raccord altérée (%(raccord)s)"),
    N_("sens de la référence %(ref)s inversé"),
    N_("raccord de deux lettres (%(raccord)s) au lieu de trois"),
    N_("joker mal entouré ou non entouré"),
    N_("score absent (%(score)s points attribués)"),
    N_("score %(claimed)s faux et placement incertain : score minimum %(score)s attribué"),
    N_("score %(claimed)s faux, score exact %(exact)s"),
    N_("cumul %(total)s faux (%(written)s d'après les scores écrits)"),
    N_("Seul coup à %(score)s points."),
    N_("%(count)s coups à %(score)s points ; retenu : %(rule)s."),
    N_("%(count)s coups à %(score)s points ; retenu selon l'ordre FISF du top."),
    N_("Lettre(s) choisie(s) : %(letters)s."), N_("Lettre rendue : %(letter)s."),
    N_("le meilleur score"), N_("le moins de jokers"), N_("le coup qui termine la partie"),
    N_("le coup le plus ouvert"), N_("le mot horizontal"),
    N_("la plus petite référence (rangée, puis colonne)"), N_("le plus petit mot"),
    N_("nul"), N_("absent"),
    N_("cumul absent"),
    N_("%(count)s scrabble(s) valable(s)"), N_("%(count)s non valable(s)"),
    N_("%(count)s répété(s)"), N_("nombre de scrabbles absent"),
    N_("nombre écrit %(written)s, %(count)s scrabbles listés"),
    N_("Aucun scrabble : la grille ne change pas."),
    N_("Top choisi par l'arbitre (%(actor)s) : %(reason)s"),
    N_("Suite choisie par l'arbitre (%(actor)s) : %(reason)s"),
    # the states of a Duplicate game and of its rounds (views.duplicate), of a correspondence
    # game
    N_("programmée"), N_("en cours"), N_("terminée"), N_("corrigé"), N_("résultats publiés"),
    # a correspondence game's end, its scores and its moves (services.correspondence,
    # puzzles.correspondence)
    N_("%(colour)s perd au temps (aucun coup reçu avant le %(date)s)."),
    N_("%(count)s passes consécutives."), N_("%(colour)s a posé toutes ses lettres."),
    N_("ROUGE %(red)s – BLEU %(blue)s"), N_("%(ref)s %(word)s (%(score)s points)"),
    N_("ROUGE"), N_("BLEU"), N_("gagnée"), N_("nulle"), N_("perdue"),
    N_("n° %(number)s, version %(version)s"),
    # a verification's and a reference solution's origin (services.verification,
    # services.reference)
    N_("vérification initiale"), N_("solveur (%(seconds)s s)"),
    N_("solveur (%(seconds)s s, optimum prouvé)"), N_("arbitre"),
    # a Duplicate round in a player's results (services.people)
    N_("%(title)s — coup %(number)s"),
    # a Duplicate game's page (services.duplicate.describe_rhythm, services.duplicate_pages)
    N_("en direct : %(minutes)s min par tour, le tirage suivant dès les résultats"),
    N_("un tour toutes les %(hours)s heures"),
    N_("tour suivant dès que tous les joueurs ont répondu, au plus tard %(hours)s heures "
       "après le tirage"),
    N_("Grille après le tour %(number)s"), N_("Grille avant le tour %(number)s"),
    N_("clôture chaque %(days)s à %(time)s"),
    N_("lundi"), N_("mardi"), N_("mercredi"), N_("jeudi"), N_("vendredi"), N_("samedi"),
    N_("dimanche"),
    # the Duplicate variants told to players (services.duplicate: VARIANT_RULES_FR, the
    # round mails' labels)
    N_("Duplicate Top : chaque tour, le ou les joueurs qui réalisent la meilleure marque de "
       "la salle gagnent un point de classement."),
    N_("Complétif : complétez le tirage de 6 lettres par 1 lettre choisie dans le stock et "
       "nommez-la après le score (« +T »)."),
    N_("Superjoker : complétez le tirage de 5 lettres par 2 lettres choisies dans le stock et "
       "nommez-les après le score (« +ST »)."),
    N_("Métagramme : vous pouvez échanger une lettre du tirage contre une lettre du stock ; "
       "nommez la lettre rendue puis la lettre prise (« -N +K »)."),
    N_("Elliptique : 8 lettres sont tirées ; jouez un mot d'au plus 7 d'entre elles."),
    N_("Partie de Superscrabble : trouvez tous les scrabbles du tirage sur la grille ; "
       "écrivez-les avec leur référence, séparés par des virgules, puis « ; » et leur nombre. "
       "Un point par scrabble valable ; l'arbitre choisit ensuite le scrabble que tous "
       "placent."),
    N_("Tactique : deux groupes de lettres ; jouez un mot avec chacun, dans l'ordre de votre "
       "choix, et écrivez les deux mots dans l'ordre où vous les posez, chacun avec son score, "
       "puis leur somme."),
    N_("Vos scrabbles valables (total)"), N_("Vos points de classement (tours topés)"),
    N_("Scrabble posé"),
    # the console's flash messages (webapp.views.console, views.people), which base.html
    # shows through |tr_msg
    N_("Réponse enregistrée."),
    N_("Réponse enregistrée. Si l'appel change un résultat, enregistrez la décision puis "
       "relancez la vérification."),
    N_("Classement définitif publié."),
    N_("Compétition « %(name)s » créée."),
    N_("Donnez un nom à l'étape."),
    N_("Le nom de l'étape dépasse %(max)s caractères."),
    N_("Étape « %(name)s » ajoutée."),
    N_("Compétition ouverte à tous les joueurs : chacun peut envoyer ses feuilles et être "
       "classé."),
    N_("Compétition réservée aux joueurs inscrits."),
    N_("Rien n'a été changé : %(reason)s"),
    N_("Règles du classement général enregistrées."),
    N_("Partie par correspondance %(code)s créée : ROUGE joue."),
    N_("Série : %(count)s parties créées (toutes rondes) ; dans chacune, ROUGE joue."),
    N_("Partie Duplicate %(code)s créée."),
    N_("Top du tour %(number)s : %(ref)s %(word)s (%(score)s)."),
    N_("Tour %(number)s corrigé à nouveau."),
    N_("Tour %(number)s clos maintenant : les bulletins reçus désormais sont hors délai ; la "
       "correction suit."),
    N_("Aucun tour n'est ouvert : il n'y a rien à clore."),
    N_("Message sortant n° %(id)s remis dans la file : l'expéditeur le renvoie à son "
       "prochain passage."),
    N_("Import terminé : %(created)s créé(s), %(updated)s mis à jour, %(unchanged)s "
       "inchangé(s)."),
    N_("Problème enregistré."),
    N_("C'est fait."),
    N_("Solution de référence enregistrée : %(total)s %(unit)s."),
    N_("Feuille hors délai acceptée. Les feuilles sont déjà vérifiées : elle n'entrera au "
       "classement qu'après « Relancer la vérification… » (en haut de cette page)."),
    N_("Feuille hors délai acceptée : elle sera vérifiée avec les autres à la vérification "
       "du problème."),
    N_("L'aperçu n'est pas encore complet : rien n'a été appliqué. Poursuivez l'aperçu, puis "
       "appliquez."),
    N_("Les résultats ont changé depuis l'aperçu (nouvelle décision ?) : vérifiez le nouvel "
       "aperçu avant d'appliquer."),
    N_("Décision enregistrée. Relancez la vérification pour l'appliquer aux rapports."),
    N_("Fiche du joueur enregistrée."),
    # the services' refusals shown on the pages (error|tr_msg) and as flashes: appeals,
    # problems, competitions, rounds, Duplicate and correspondence games, verification
    N_("Adresse électronique invalide : « %(value)s » (%(problem)s)."),
    N_("Cette vérification ne concerne pas votre feuille."),
    N_("Le délai d'appel de ce problème n'est pas ouvert."),
    N_("Expliquez en quelques mots ce que vous contestez."),
    N_("Votre appel compte %(len)s caractères : %(max)s au plus. Résumez ce que vous "
       "contestez."),
    N_("Votre appel précédent attend encore la réponse de l'arbitre : attendez-la avant d'en "
       "déposer un autre."),
    N_("Vous avez déjà fait appel %(len)s fois pour ce problème : %(allowed)s appels au plus "
       "par problème."),
    N_("Cet appel a déjà reçu une réponse."),
    N_("La réponse à un appel ne peut pas être vide."),
    N_("ROUGE et BLEU doivent être deux joueurs différents."),
    N_("Délais : un coup en 1 à 1440 heures, le rappel avant ce délai, la tolérance entre 0 "
       "et 720 heures."),
    N_("La rangée doit compter au moins 14 lettres (7 pour chaque joueur)."),
    N_("Un joueur est choisi deux fois."),
    N_("Choisissez au moins deux joueurs pour le tournoi toutes rondes."),
    N_("%(name)s n'est pas inscrit à la série « %(series)s »."),
    N_("%(red)s et %(blue)s ont déjà une partie dans la série « %(series)s »."),
    N_("Les résultats de ce tour sont publiés : son top ne peut plus changer."),
    N_("Indiquez le motif du changement de top."),
    N_("Indiquez le motif du choix du scrabble."),
    N_("Écrivez le mot puis les lettres choisies, par exemple « RESTAIT +T » (Métagramme : « "
       "KETAMINE -N +K »)."),
    N_("%(game)s : %(limit)s lettre(s) choisie(s) au plus."),
    N_("En Métagramme, la lettre rendue et la lettre choisie vont ensemble (« -N +K »)."),
    N_("Lettre(s) choisie(s) « %(chosen)s » absente(s) du stock."),
    N_("« %(ref)s %(word)s » n'est pas un coup jouable avec le tirage %(rack)s sur cette "
       "grille."),
    N_("Ce tour est encore ouvert : il sera corrigé à sa clôture."),
    N_("Indiquez le motif de la nouvelle correction."),
    N_("Le tour a changé depuis l'aperçu (bulletin, correction ou publication) : rien n'a "
       "été enregistré. Relancez l'aperçu."),
    N_("En Elliptique, un coup pose au plus 7 lettres."),
    N_("« %(ref)s %(word)s » n'est pas un scrabble du tirage %(rack)s sur cette grille."),
    N_("La lettre rendue %(swapped)s n'est pas dans le tirage %(drawn)s."),
    N_("Action inconnue : « %(action)s »."),
    N_("Fuseau horaire inconnu : « %(timezone)s »."),
    N_("Le code de la partie ne peut contenir d'espace."),
    N_("Le code « %(code)s » est déjà pris."),
    N_("Rythme des tours inconnu : choisissez « toutes les N heures », « jours fixes », « "
       "dès que tous ont répondu » ou « en direct »."),
    N_("Choisissez au moins un jour de la semaine pour la clôture des tours."),
    N_("Donnez un titre à la partie."),
    N_("Le délai de revue du top ne peut pas être négatif."),
    N_("En direct, les résultats et le tirage suivant suivent la clôture du tour : le délai "
       "de revue du top doit être 0."),
    N_("Liste de mots « %(lexicon)s » inconnue de ce serveur (listes configurées : %(names)s)."),
    N_("Partie de Superscrabble : écrivez le mot de 2 lettres placé par l'arbitre avec sa "
       "référence (ex. « H7 LA »)."),
    N_("Partie de Superscrabble : donnez les tirages de 7 lettres, un par coup."),
    N_("Partie de Superscrabble : le mot de départ a 2 lettres et couvre la case centrale."),
    N_("En direct, le temps d'un tour est un nombre de minutes entre 1 et 180."),
    N_("Le délai d'un tour doit être un nombre d'heures entre 1 et 1440."),
    N_("Heure de clôture illisible : « %(hhmm)s » (attendu HH:MM)."),
    N_("Variante « %(variant)s » inconnue de ce serveur (jouables : %(labels)s)."),
    N_("Partie de Superscrabble, coup %(i)s : « %(rack)s » n'est pas un tirage de 7 lettres."),
    N_("Partie de Superscrabble : mot de départ — %(reason)s"),
    N_("Seul un problème ouvert peut être clos."),
    N_("Indiquez le motif de la clôture anticipée (il figure au journal)."),
    N_("Cette étape n'est pas possible dans l'état actuel du problème."),
    N_("Le délai n'est pas écoulé : le problème ne peut pas être clos."),
    N_("Un joueur a déjà l'adresse « %(email)s »."),
    N_("Une compétition a déjà l'identifiant « %(slug)s »."),
    N_("La clôture doit suivre la publication."),
    N_("Cette étape n'appartient pas à la compétition choisie."),
    N_("Le code public « %(code)s » est déjà celui d'un autre problème : choisissez-en un "
       "autre."),
    N_("Ce problème est clos : ses dates ne peuvent plus changer."),
    N_("Ce problème est déjà publié : seule la clôture peut changer."),
    N_("Indiquez le motif du changement de dates."),
    N_("Énoncé illisible : pas de solution de référence possible."),
    N_("Solution de référence illisible."),
    N_("L'intervalle entre deux annonces ne peut pas être négatif."),
    N_("L'annonce coup par coup ne concerne que les Anticipations (intervalle 0 sinon)."),
    N_("Le rythme « en direct » ne concerne que les Anticipations."),
    N_("%(label)s : au moins %(minimum)s."),
    N_("%(label)s : au plus %(maximum)s."),
    N_("%(label)s : « %(value)s » n'est pas un nombre entier."),
    # the console forms' readers (webapp.views.console.common, webapp.services.inputs) and
    # the round-game forms' own refusals; the field's label is translated inside them
    N_("%(label)s : %(amount)s est hors des limites (de %(low)s à %(high)s)."),
    N_("%(label)s : « %(value)s » n'est pas un nombre."),
    N_("%(label)s : valeur obligatoire."),
    N_("%(label)s : %(length)s caractères, %(longest)s au plus."),
    N_("%(label)s : un retour à la ligne n'y est pas admis."),
    N_("%(label)s : le caractère de contrôle U+%(char)s n'y est pas admis."),
    N_("%(label)s « %(code)s » refusé : de 1 à 32 lettres sans accent, chiffres, - et _, "
       "commençant par une lettre ou un chiffre."),
    N_("Date illisible : « %(value)s » (attendu AAAA-MM-JJTHH:MM)."),
    N_("Date hors des limites : « %(value)s » (l'année doit être comprise entre %(low)s et "
       "%(high)s)."),
    N_("Choisissez la compétition dont les inscrits joueront la partie."),
    N_("La conversion des avertissements se fait au 4e ou au 6e."),
    N_("Jeu de lettres inconnu : français (102) ou roumain (100)."),
    N_("Règle du solo inconnue."),
    N_("Partie de Superscrabble : %(length)s tirages, %(longest)s au plus."),
    N_("Choisissez la série, le joueur ROUGE et le joueur BLEU."),
    N_("Choisissez la série."),
    N_("Tournoi toutes rondes : %(length)s joueurs choisis, %(longest)s au plus."),
    # the labels of the round-game console forms' fields, as those messages name them
    N_("Code de la partie"), N_("Nombre de tours"), N_("Graine du sac"),
    N_("Délai d'un tour (heures)"), N_("Temps d'un tour en direct (minutes)"),
    N_("Partie de Superscrabble, mot de départ"), N_("Tolérance (heures)"),
    N_("Graine de la rangée"), N_("Préfixe des codes"), N_("Empreinte de l'aperçu"),
    N_("Complétif, Superjoker : jokers"), N_("Tactique : complément des groupes"),
    N_("Tactique : tirage refusé"), N_("Complétif, Superjoker : lettre choisie non posée"),
    N_("Revue du top après la clôture (minutes)"), N_("Délai d'un coup (heures)"),
    N_("Rappel avant le délai (heures)"), N_("Tactique : ordre des groupes"),
    N_("Règle de classement général inconnue : « %(rule)s »."),
    N_("Cette feuille n'est pas hors délai."),
    N_("Un motif est nécessaire pour accepter une feuille hors délai."),
    N_("Motivez la décision (elle figure dans les rapports)."),
    N_("Indiquez le motif de la nouvelle vérification."),
    N_("Aperçu partiel (%(done)s feuilles revérifiées sur %(sheets)s) : terminez l'aperçu "
       "avant d'appliquer."),
    N_("Type de décision inconnu : %(kind)s"),
    N_("Une décision sur un mot doit nommer le mot."),
    N_("Une décision sur une feuille doit désigner la feuille."),
    # a move's verdict (puzzles.verify.report.MoveStatus)
    N_("valide"), N_("avertissement"), N_("pénalité"), N_("zéro"), N_("zéro en cascade"),
    N_("annulé"), N_("passe"), N_("doublon"), N_("hors jeu"), N_("non joué"),
    N_("brouillon"), N_("programmé"), N_("ouvert"), N_("clos"), N_("vérifié"),
    N_("classement provisoire"), N_("classement définitif"), N_("appel en cours"),
    N_("rejeté"), N_("en attente"), N_("en cours d'envoi"), N_("envoyé"), N_("échec"),
    N_("reçu, pas encore traité"), N_("traité"), N_("doublon"), N_("en quarantaine"),
    N_("écarté"), N_("ignoré"),
)


#: the values that may hold several sentences
_SENTENCES = ("reason", "warning", "warnings")
#: the values that are always a number (a length, a bound), read as one: a label before them
#: may hold « : » (« Tactique : ordre des groupes : 41 caractères, 40 au plus. »)
_NUMBERS = ("amount", "low", "high", "length", "longest")


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """(literal prefix, pattern, msgid) of every message, in :data:`MESSAGES` order. The
    prefix is the msgid's text before its first ``%(name)s``: only a text that starts with
    it can match the (anchored) pattern, so :func:`_one` skips the others without running
    the regular expression — the same first match, found without trying ~400 patterns on
    every line of every report."""
    out = []
    for msgid in MESSAGES:
        regex = re.escape(msgid)
        # a reason may hold several sentences; any other value (a word, a reference, a
        # number, a date) none: « … retenue : H7 ZA. Avertissement : … » is two messages
        regex = re.sub(r"%\\\((\w+)\\\)s", lambda m: (
            f"(?P<{m.group(1)}>.+?)" if m.group(1) in _SENTENCES
            else f"(?P<{m.group(1)}>[-+]?[0-9][0-9.,eE+-]*)" if m.group(1) in _NUMBERS
            else f"(?P<{m.group(1)}>(?:(?!\\. ).)+?)"), regex)
        out.append((msgid.partition("%(")[0], re.compile(regex + r"\Z", re.DOTALL), msgid))
    return tuple(out)


@lru_cache(maxsize=512)
def _candidates(first: str) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """The patterns a text starting with the character ``first`` may match, in
    :data:`MESSAGES` order: those whose prefix starts with it, and those with no prefix."""
    return tuple(p for p in _patterns() if not p[0] or p[0].startswith(first))


_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[A-ZÀ-ÝÉÈ«])")


def _one(text: str, gettext: Callable[[str], str]) -> str | None:
    for prefix, regex, msgid in _candidates(text[:1]):
        if not text.startswith(prefix):
            continue
        m = regex.fullmatch(text)
        if m:
            # a reason may list several messages joined by « ; »: each is translated
            values = {k: " ; ".join(_part(p, gettext) for p in v.split(" ; "))
                      if k in ("reason", "warning", "warnings", "game", "unit", "colour",
                               "what", "sense", "rule", "result", "label")
                      else ", ".join(translate(p, gettext) for p in v.split(", "))
                      if k in ("days", "labels")
                      else dates(v, gettext) if k == "date"
                      else v for k, v in m.groupdict().items()}
            try:
                return gettext(msgid) % values
            except (KeyError, ValueError, TypeError):  # a broken translation: the French
                return text
    return None


def _part(text: str, gettext: Callable[[str], str]) -> str:
    """One part of a value (« score 20 faux, score exact 22. », the last of a list of
    warnings, carries the list's final full stop): translated with or without that stop."""
    out = translate(text, gettext)
    if out == text and text.endswith(".") and not text.endswith(".."):
        bare = translate(text[:-1], gettext)
        if bare != text[:-1]:
            return bare + "."
    return out


def translate(text: object, gettext: Callable[[str], str]) -> str:
    """``text`` (a French message of puzzles/ or scoring/) in the language of ``gettext``;
    unknown messages, and anything that is not a string, come back unchanged (as text)."""
    if not isinstance(text, str) or not text.strip():
        return "" if text is None else str(text)
    direct = gettext(text)  # a label or a sentence the catalogue has as it is
    if direct != text:
        return direct
    whole = _one(text.strip(), gettext)
    if whole is not None:
        return whole
    parts = _SENTENCE.split(text.strip())
    if len(parts) == 1:
        if " ; " in text:  # a list (« 2 scrabble(s) valable(s) ; 1 répété(s). »): item by item
            items = text.strip().split(" ; ")
            done = [_part(p, gettext) for p in items]
            if done != items:
                return "; ".join(done)
        return text
    return " ".join(_one(p, gettext) or p for p in parts)


#: the column titles of the text report's moves (puzzles.verify.report)
REPORT_HEADER = N_("Coup  Réf.  Mot              Annoncé  Exact  Compté  Cumul  Écrit  Verdict")
_VERDICTS = ("zéro en cascade", "valide", "avertissement", "pénalité", "zéro", "annulé",
             "passe", "doublon", "hors jeu", "non joué")
_MOVE_LINE = re.compile(r"(\s*\d+\s.*\s)(" + "|".join(map(re.escape, _VERDICTS)) + r")\Z")


def report_text(text: object, gettext: Callable[[str], str]) -> str:
    """The French text report of ``puzzles.verify`` in the language of ``gettext``, line by
    line: its headings and totals, each move's verdict and the reasons under it (indented
    ``- …``); the columns of a move line (numbers, references, words) stay as they are."""
    if not isinstance(text, str):
        return "" if text is None else str(text)
    out = []
    for line in text.split("\n"):
        body = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if not body:
            out.append(line)
        elif body == REPORT_HEADER:
            out.append(indent + gettext(REPORT_HEADER))
        elif body.startswith("- "):
            out.append(indent + "- " + translate(body[2:], gettext))
        elif m := _MOVE_LINE.fullmatch(line):
            out.append(m.group(1) + gettext(m.group(2)))
        else:
            out.append(indent + translate(body, gettext))
    return "\n".join(out)


_DATE = re.compile(r"(\d\d/\d\d/\d{4}) à (\d\d:\d\d(?::\d\d)?)")
N_("%(day)s à %(time)s")


def dates(text: str, gettext: Callable[[str], str]) -> str:
    """The French dates of webapp.services.timefmt (``12/05/2026 à 19:00``) in the language
    of ``gettext`` (``12/05/2026, ora 19:00``)."""
    pattern = gettext("%(day)s à %(time)s")
    if pattern == "%(day)s à %(time)s":
        return text
    return _DATE.sub(lambda m: pattern % {"day": m.group(1), "time": m.group(2)}, text)
