"""The rules of each game type explained to players in plain words (the « Règles » pages),
with an example feuille de route that the sheet parser reads without error.

The content follows the FRSc rules (docs/RULES.md §5–§7, from the Romanian federation's
French text) and the sheet format of docs/PUZZLES.md §4. Keys are ``puzzles.problem.GameType``
values; the titles are the labels of the game-type table (``puzzles.families``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from puzzles.duplicate.registry import round_game
from puzzles.duplicate.settings import DuplicateError
from puzzles.families import family, family_or_none
from webapp.services.phrasebook import N_

COLUMNS = ("Coup", "Lettres", "Réf.", "Mot", "Score", "Cumul")
HEADER = " | ".join(COLUMNS)


#: what the example is: a feuille de route (one-sheet games), a round's bulletin (the
#: Duplicate family), a move of the two-player correspondence game
SHEET, BULLETIN, MOVE = "sheet", "bulletin", "move"


@dataclass(frozen=True)
class GameRulesPage:
    """One rules page. Every text is a French catalogue msgid (marked with ``N_``): the
    pages show it in the reader's language (``|tr_msg``)."""

    key: str
    summary: str  # one sentence, shown in the index
    paragraphs: tuple[str, ...]
    example: str  # a feuille de route (or a bulletin, a move), as a player writes it
    example_notes: tuple[str, ...] = field(default_factory=tuple)
    ranking: str = N_("Classement : par cumul corrigé décroissant ; à égalité, la feuille "
                      "reçue la première passe devant.")

    title: str = ""  # the game's name when it is not a one-sheet game type
    example_kind: str = SHEET

    @property
    def label(self) -> str:
        return self.title or family(self.key).label

    @property
    def round_based(self) -> bool:
        """A game of the Duplicate family (or the correspondence game): played round by
        round on a common grid, not one sheet per problem."""
        return self.example_kind != SHEET


_SHEET_WORDS = (
    N_("Chaque ligne de la feuille de route donne, dans l'ordre : le numéro du coup, les lettres "
       "prises (le joker s'écrit ?), la référence (H8 : ligne H, colonne 8, mot horizontal ; "
       "8H : mot vertical), le mot (le joker en minuscule : ChACUNE), le score et, si vous le "
       "souhaitez, le cumul."),
    N_("Un cumul faux ou absent n'est pas une faute : l'arbitre le recalcule. Un score faux ou "
       "absent vaut un avertissement technique ; c'est le score exact qui compte."),
    N_("Un mot non valable ou mal placé vaut zéro, et tout mot posé ensuite qui s'y appuie, ou "
       "qui n'aurait pas pu être posé sans lui, vaut zéro aussi."),
)

_INTEGRAL_EXAMPLE = f"{HEADER}\n1 ACEFHIR H8 FICHERA 82 82\n2 SUW 15F WUS 84 166\n"

_ANTICIPATION_EXAMPLE = (
    f"{HEADER}\n"
    "1 G1 AST H8 TAS 6\n"
    "1 G2 LE 10F LES 5 11\n"
    "2 G9 ACEFHIR 9B FICHERA 72 83\n"
    "Annuler coup 2\n"
    "3 G4 SUW 10J WUS 21 38\n"
)

_ANTICIPATION_MOVE1 = (
    N_("Coup 1 en deux mots : écrivez deux lignes portant le numéro 1. La première est le mot "
       "du groupe 1 (2 à 4 lettres, posé en premier), la seconde le mot du groupe de 7 "
       "lettres. Mettez le score de chaque mot dans sa ligne et, dans la colonne Cumul de la "
       "seconde ligne, la somme des deux scores (« ainsi que le cumul de ces deux scores »). "
       "Une erreur dans cette somme est une erreur de score du billet."),
    N_("Vous pouvez aussi ne jouer qu'un mot au coup 1, avec le groupe de 7 lettres : une seule "
       "ligne numérotée 1 ; les lettres du groupe 1 sont alors éliminées."),
)

_ANNUL = (
    N_("À tout moment vous pouvez annuler un ou plusieurs coups antérieurs : écrivez « Annuler "
       "coup(s) … » sur le billet du coup en cours (une ligne avant ce coup). Les mots annulés "
       "sont retirés de votre grille, valent zéro et leurs lettres sont perdues ; les cases "
       "libérées peuvent resservir.")
)

PAGES: dict[str, GameRulesPage] = {}


def _add(page: GameRulesPage) -> None:
    PAGES[page.key] = page


_add(GameRulesPage(
    key="integral",
    summary=N_("Tout le sac, une grille vierge : le plus grand cumul possible."),
    paragraphs=(
        N_("Vous partez d'une grille vierge et disposez de toutes les lettres du jeu (102 en "
           "français, 100 en roumain, jokers compris). Vous posez des mots les uns après les "
           "autres jusqu'à épuisement des lettres, ou jusqu'à ce que vous jugiez bon de vous "
           "arrêter."),
        N_("À chaque coup vous prenez de 1 à 7 lettres (au moins 2 au premier coup), sans autre "
           "contrainte de voyelles ou de consonnes. La valeur des lettres non utilisées n'est "
           "pas retirée du total."),
        N_("Il n'y a ni ramassage après chaque coup ni temps par coup : vous envoyez la solution "
           "entière avant la clôture, plus tôt si vous le souhaitez."),
        *_SHEET_WORDS,
    ),
    example=_INTEGRAL_EXAMPLE,
    example_notes=(N_("FICHERA en H8 rapporte 82 points (scrabble compris), puis WUS en 15F 84 : "
       "cumul 166."),),
))
_add(GameRulesPage(
    key="integral_partiel",
    summary=N_("Un stock de 21 à 35 lettres tirées par l'arbitre."),
    paragraphs=(
        N_("L'arbitre tire de 21 à 35 lettres et les affiche : c'est votre stock. Comme à "
           "l'Intégral, vous construisez votre grille à partir d'une grille vierge, de 1 à 7 "
           "lettres par coup (au moins 2 au premier)."),
        N_("Temps de jeu en salle : 60 minutes pour 21 à 25 lettres, 75 pour 26 à 30, 90 pour "
           "31 à 35 ; par correspondance, la clôture annoncée fait foi."),
        *_SHEET_WORDS,
    ),
    example=_INTEGRAL_EXAMPLE,
))
_add(GameRulesPage(
    key="rangee",
    summary=N_("Une rangée de 31 à 45 lettres à prendre dans l'ordre, sans en sauter."),
    paragraphs=(
        N_("L'arbitre tire de 31 à 45 lettres et les affiche dans l'ordre du tirage : c'est une "
           "rangée dont l'ordre ne change plus."),
        N_("Règle : à chaque coup vous utilisez les 1 à 7 premières lettres de ce qui reste de la "
           "rangée (2 à 7 au premier coup), sans jamais sauter une lettre. Un mot qui enfreint "
           "cette règle est annulé, et le reste de la solution avec lui."),
        N_("Recopiez la rangée en tête de votre feuille de route (ligne « Rangée : »)."),
        *_SHEET_WORDS,
    ),
    example=f"Rangée: ACEFHIRSUW\n{_INTEGRAL_EXAMPLE}",
))
_add(GameRulesPage(
    key="anticipation",
    summary=N_("15 groupes annoncés d'avance, 14 coups : préparer les gros coups."),
    paragraphs=(
        N_("L'arbitre répartit tout le sac en 15 groupes numérotés : le groupe 1 de 4 lettres "
           "(2 en roumain : une voyelle et une consonne), les 14 autres de 7 lettres. Les numéros "
           "servent seulement à nommer les groupes : ce n'est pas l'ordre de jeu."),
        N_("Chacun construit sa propre grille : il n'y a pas de mot « top » commun. Au coup 1, "
           "l'arbitre annonce le groupe 1 et un groupe de 7 lettres tiré au sort ; à chacun des "
           "coups 2 à 14, un autre groupe. Les lettres d'un groupe que vous n'utilisez pas sont "
           "éliminées."),
        *_ANTICIPATION_MOVE1,
        _ANNUL,
        N_("Par correspondance, les groupes peuvent être annoncés coup par coup : chaque billet "
           "compte à l'heure où il a été reçu."),
        *_SHEET_WORDS,
    ),
    example=_ANTICIPATION_EXAMPLE,
    example_notes=(
        N_("Coup 1 en deux mots : TAS (groupe 1) vaut 6, puis LES (groupe 2) vaut 5 ; la colonne "
           "Cumul de la seconde ligne porte leur somme, 6 + 5 = 11."),
        N_("« Annuler coup 2 » avant le coup 3 retire FICHERA de la grille avant que WUS soit "
           "posé."),
    ),
))
_add(GameRulesPage(
    key="anticipation_avocalique",
    summary=N_("Anticipation dont l'arbitre n'annonce que les consonnes."),
    paragraphs=(
        N_("Les règles de l'Anticipation s'appliquent, mais l'arbitre n'annonce que les "
           "consonnes de chaque groupe. Vous complétez chaque groupe à votre gré avec les "
           "voyelles du stock, jusqu'à 7 lettres (4 pour le groupe 1) ; les jokers (et le Y en "
           "français) sont dans ce stock et peuvent servir de voyelle ou de consonne."),
        N_("Si vous annulez un coup, ses consonnes et ses voyelles sont éliminées."),
        *_ANTICIPATION_MOVE1,
        *_SHEET_WORDS,
    ),
    example=_ANTICIPATION_EXAMPLE,
))
_add(GameRulesPage(
    key="exclusif_resistance",
    summary=N_("À chaque coup un scrabble, sinon vous êtes éliminé (mort subite)."),
    paragraphs=(
        N_("Chacun des 14 groupes de 7 lettres permet au moins un scrabble sec. À chaque coup "
           "vous devez placer les 7 lettres. Les scores ne comptent pas : chaque scrabble vaut "
           "un point de classement."),
        N_("Qui ne peut placer aucun scrabble à un coup sort du jeu. Les pénalités sont en "
           "points de classement."),
        *_SHEET_WORDS[:1],
    ),
    example=f"{HEADER}\n1 G5 ACEFHIR H8 FICHERA\n2 G9 AEILNST 9B ENTAILS\n",
    ranking=N_("Classement : par nombre de scrabbles (points de classement) décroissant."),
))
_add(GameRulesPage(
    key="exclusif_fond",
    summary=N_("À chaque coup un scrabble compté normalement, ou « Passe »."),
    paragraphs=(
        N_("À chaque coup vous devez placer les 7 lettres, et le scrabble est compté "
           "normalement. Si vous ne pouvez en placer aucun, écrivez « Passe » : ce coup vaut 0."),
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G5 ACEFHIR H8 FICHERA 82 82\n2 G9 Passe\n",
))
_add(GameRulesPage(
    key="anticipation_aveugle",
    summary=N_("Anticipation avec vos propres 15 groupes, remis sous enveloppe."),
    paragraphs=(
        N_("Vous composez vous-même les 15 groupes (le groupe 1 de 4 lettres, puis 14 de 7), en "
           "respectant les règles de l'Anticipation, et vous les numérotez en commençant par le "
           "groupe de 4 lettres. À chaque coup l'arbitre annonce un numéro (deux au coup 1, dont "
           "le 1) : vous jouez votre groupe portant ce numéro."),
        N_("Écrivez vos groupes en tête de la feuille (ligne « Groupes : 1=ABCD 2=EFGHIJK … »)."),
        *_ANTICIPATION_MOVE1,
        *_SHEET_WORDS,
    ),
    example=_ANTICIPATION_EXAMPLE,
))
_add(GameRulesPage(
    key="serie_maximaux",
    summary=N_("7 groupes de 7 lettres dans l'ordre de votre choix : le top des tops."),
    paragraphs=(
        N_("L'arbitre tire 7 groupes de 7 lettres. Vous posez un mot par groupe, dans l'ordre "
           "que vous voulez ; les lettres non utilisées d'un groupe sont éliminées, et il n'est "
           "pas obligatoire d'utiliser tous les groupes."),
        N_("Le but : à chaque coup, le score le plus haut possible avec n'importe lequel des "
           "groupes restants. Temps de jeu en salle : 60 minutes."),
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G3 ACEFHIR H8 FICHERA 82 82\n2 G6 SUW 15F WUS 84 166\n",
    ranking=N_("Classement : d'abord par le score du coup 1, puis à égalité par celui du coup "
       "2, et ainsi de suite ; les sanctions sont en points de classement."),
))
_add(GameRulesPage(
    key="serie_maximaux_consonnes",
    summary=N_("Série de maximaux dont seules les consonnes sont annoncées."),
    paragraphs=(
        N_("Comme la Série de maximaux, mais l'arbitre n'annonce que les consonnes de chaque "
           "groupe ; vous complétez à votre gré avec les lettres du stock, jusqu'à 7 lettres "
           "par groupe (voir l'Anticipation avocalique)."),
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G3 ACEFHIR H8 FICHERA 82 82\n",
    ranking=N_("Classement : d'abord par le score du coup 1, puis du coup 2, et ainsi de suite."),
))
_add(GameRulesPage(
    key="superscrabble",
    summary=N_("Une grille donnée, 7 lettres : trouver le plus de scrabbles possible."),
    paragraphs=(
        N_("Sur la grille donnée, trouvez le plus grand nombre de scrabbles (les 7 lettres "
           "posées) avec le même tirage. Après chaque scrabble la grille revient à son état de "
           "départ."),
        N_("Chaque scrabble vaut un point de classement, quel que soit son score. Le même mot "
           "peut compter à des endroits différents. Au même endroit, le joker mis pour la même "
           "lettre à des places différentes ne compte qu'une fois (ReLEVER, RELeVER) ; mis pour "
           "des lettres différentes, chaque mot compte (LEVERAi, LEVERAs)."),
        N_("Sanctions : un point de classement au 4e avertissement, puis un de plus tous les "
           "trois avertissements."),
        N_("Écrivez un scrabble par ligne : la référence puis le mot."),
    ),
    example="Scrabbles:\n1 10G LEVERAi\n2 10G LEVERAs\n",
    ranking=N_("Classement : par nombre de scrabbles valables ; à égalité, la feuille reçue la "
       "première passe devant."),
))
_add(GameRulesPage(
    key="superscrabble_incomplet",
    summary=N_("Construire sa grille, puis y placer le plus de scrabbles avec 7 lettres."),
    paragraphs=(
        N_("L'arbitre tire 7 lettres. Vous construisez vous-même, avec les autres lettres du "
           "sac et selon les règles de l'Intégral, la grille qui permettra le plus de scrabbles "
           "avec ce tirage, puis vous donnez la liste de ces scrabbles."),
        N_("La feuille porte d'abord la construction (une ligne par coup), puis une ligne "
           "« Scrabbles : » et un scrabble par ligne. Les erreurs de construction sont traitées "
           "comme à l'Intégral."),
        N_("La construction est la succession des mots placés : leurs scores ne sont pas "
           "demandés, une ligne sans score n'est pas une faute ; un score écrit faux vaut un "
           "avertissement, comme à l'Intégral."),
    ),
    example=f"{HEADER}\n1 ACEFHIR H8 FICHERA 82 82\nScrabbles:\n1 10G LEVERAi\n",
    ranking=N_("Classement : par nombre de scrabbles ; à égalité, celui qui a utilisé le moins "
       "de lettres pour sa construction passe devant."),
))
_add(GameRulesPage(
    key="n_scrabble",
    summary=N_("N groupes de 7 lettres, un mot par groupe, sur votre propre grille."),
    paragraphs=(
        N_("L'arbitre tire et affiche N groupes de 7 lettres. Vous posez un mot par groupe sur "
           "votre grille ; les lettres non utilisées sont éliminées. L'ordre des groupes est à "
           "votre choix, ou imposé par l'arbitre (il le dit alors dans l'énoncé)."),
        N_("Temps de jeu en salle : 60 minutes."),
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G2 ACEFHIR H8 FICHERA 82 82\n2 G1 SUW 15F WUS 84 166\n",
))
_add(GameRulesPage(
    key="n_scrabble_consonnes",
    summary=N_("N-Scrabble dont seules les consonnes sont annoncées."),
    paragraphs=(
        N_("Comme le N-Scrabble, mais l'arbitre n'annonce que les consonnes de chaque groupe ; "
           "vous complétez à votre gré avec les lettres du stock (voir l'Anticipation "
           "avocalique)."),
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G2 ACEFHIR H8 FICHERA 82 82\n",
))


# --- the round-based games: the Duplicate family and the correspondence game -------------------

_DUPLICATE_BULLETIN = N_(
    "Votre bulletin tient en une ligne : la référence (H4 : ligne H, colonne 4, mot "
    "horizontal ; 4H : colonne 4, mot vertical), le mot entier (le joker en minuscule : "
    "RESTAIt) et le score. Vous pouvez écrire avant le mot des lettres déjà sur la grille "
    "qui le situent (le raccord). Seul le dernier bulletin reçu avant la clôture du tour "
    "compte.")
_DUPLICATE_RACCORD = N_(
    "Sans référence, le raccord situe le mot : trois lettres déjà sur la grille, dans le mot "
    "ou qui le touchent (ou qui touchent une autre lettre du raccord). Suivies, elles "
    "s'écrivent avant le mot : MEN PROMENERAI 72. Sinon chaque lettre s'écrit à sa place, "
    "en cases comptées depuis la première lettre du mot, d'abord vers la droite puis vers le "
    "bas (- : vers la gauche, vers le haut) : R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56 (le R et le M "
    "de KRUMPS sont sur la grille, le O sous le R). Un mot écrit de haut en bas sans "
    "référence porte « (vertical) » devant : (vertical) MEN PROMENERAI 72.")
_DUPLICATE_RACCORD_LENGTH = N_(
    "Un raccord compte au moins trois lettres. D'une seule lettre, le bulletin est illisible "
    "et ne compte pas : renvoyez-le corrigé avant la clôture. De deux lettres, il vaut un "
    "avertissement quand c'est lui qui situe le mot (sans référence juste), sauf si le "
    "premier mot de la partie n'avait que deux lettres. La prévisualisation du bulletin "
    "vous prévient.")
_DUPLICATE_FAULTS = N_(
    "Un mot non valable, qu'on ne peut pas former avec le tirage ou qui ne tient pas sur la "
    "grille vaut zéro. Une référence fausse, un score faux ou absent, un joker mal marqué "
    "valent un avertissement quand le coup reste reconnaissable ; un coup qu'on ne peut "
    "situer qu'à son score vaut ce score moins 5 points.")
_DUPLICATE_COMMON = N_(
    "Les règles du Duplicate s'appliquent : tous jouent le même tirage sur la même grille, "
    "et le top, le coup le plus payant, est posé sur la grille de tous avant le tour "
    "suivant.")
_DUPLICATE_RANKING = N_(
    "Classement : par total des scores, bonus de solo compris et pénalités d'avertissements "
    "déduites ; le pourcentage du total des tops est indiqué.")
_FREE_LETTERS = N_(
    "Le stock, ce sont les lettres qui ne sont ni dans le tirage ni sur la grille. Une "
    "lettre choisie qui n'y est pas vaut zéro ; une lettre choisie que le top n'utilise pas "
    "reste dans le stock.")

_add(GameRulesPage(
    key="duplicate",
    title=N_("Duplicate"),
    example_kind=BULLETIN,
    summary=N_("Tout le monde joue le même tirage sur la même grille : le meilleur coup, le "
               "top, est posé pour tous."),
    paragraphs=(
        N_("À chaque tour, l'arbitre tire 7 lettres et les annonce à tous les joueurs. "
           "Chacun cherche le coup qui rapporte le plus sur la grille commune et envoie son "
           "bulletin avant la clôture du tour."),
        N_("Après la clôture, l'arbitre pose le top sur la grille : c'est de cette grille que "
           "part le tour suivant, quel que soit le coup que vous avez joué. Les lettres du "
           "tirage que le top n'utilise pas restent pour le tirage suivant."),
        N_("Le tirage a au moins deux voyelles et deux consonnes jusqu'au 15e tour, puis une "
           "de chaque. Le premier mot est horizontal et passe par la case centrale."),
        _DUPLICATE_BULLETIN,
        _DUPLICATE_FAULTS,
        N_("Solo : si vous êtes le seul à réaliser le meilleur score des joueurs, vous "
           "recevez un bonus (10 points à partir de 16 joueurs, moins en dessous)."),
    ),
    example="H4 RESTAIt 70\n",
    example_notes=(
        N_("RESTAIT en H4 (horizontal, ligne H à partir de la colonne 4), le T étant le joker "
           "(en minuscule), pour 70 points. Plusieurs solutions équivalentes s'écrivent "
           "séparées par « / » : H4 RESTAIt / 4H RESTAIt 70."),
        _DUPLICATE_RACCORD,
        _DUPLICATE_RACCORD_LENGTH,
    ),
    ranking=_DUPLICATE_RANKING,
))
_add(GameRulesPage(
    key="duplicate_tactique",
    title=N_("Duplicate Tactique"),
    example_kind=BULLETIN,
    summary=N_("Deux groupes de 7 lettres à chaque tour : deux mots de suite, un par groupe."),
    paragraphs=(
        N_("À chaque tour l'arbitre tire deux groupes de 7 lettres, chacun avec au moins une "
           "voyelle et une consonne. Vous posez deux mots de suite, un avec chaque groupe, "
           "dans l'ordre de votre choix ou dans celui que l'arbitre impose."),
        N_("Le top est la suite de deux mots qui rapporte le plus au total ; ses deux mots "
           "sont posés sur la grille de tous. L'arbitre complète ensuite chaque groupe avec "
           "ses propres lettres restantes, le groupe 1 d'abord."),
        N_("Le billet porte les deux mots dans l'ordre où ils sont posés, chacun avec sa "
           "référence et son score, puis « = » et la somme des deux. Toute erreur ou omission "
           "d'un score ou de la somme vaut un avertissement."),
        N_("La partie s'arrête quand les deux groupes n'ont plus que des voyelles, ou plus "
           "que des consonnes."),
        _DUPLICATE_FAULTS,
    ),
    example="H4 RESTAIT 70 + 8C MOTS 25 = 95\n",
    example_notes=(
        N_("RESTAIT en H4 vaut 70, puis MOTS en 8C vaut 25 : la somme écrite est 70 + 25 = "
           "95."),
    ),
    ranking=_DUPLICATE_RANKING,
))
_add(GameRulesPage(
    key="duplicate_top",
    title=N_("Duplicate Top"),
    example_kind=BULLETIN,
    summary=N_("Un point de classement chaque fois que vous faites le meilleur score des "
               "joueurs."),
    paragraphs=(
        N_("La partie se joue et se corrige comme un Duplicate, avec le même bulletin. À "
           "chaque tour, chaque joueur dont le score est le plus haut des joueurs (au moins 1 "
           "point) gagne un point de classement ; les scores eux-mêmes ne s'additionnent "
           "pas."),
        N_("Les avertissements ne comptent qu'aux tours où vous avez fait le top : 4 "
           "avertissements coûtent un point, 7 en coûtent deux, 10 trois."),
        _DUPLICATE_BULLETIN,
    ),
    example="H4 RESTAIt 70\n",
    ranking=N_("Classement : par points de classement ; à égalité, celui qui a partagé ses "
               "tops avec le moins de joueurs passe devant, puis celui dont les tours au top "
               "totalisent le plus de points."),
))
_add(GameRulesPage(
    key="duplicate_completif",
    title=N_("Duplicate Complétif"),
    example_kind=BULLETIN,
    summary=N_("6 lettres tirées, la 7e choisie par chacun dans le stock."),
    paragraphs=(
        _DUPLICATE_COMMON,
        N_("L'arbitre tire 6 lettres. Chaque joueur les complète avec une lettre de son choix "
           "prise dans le stock. Sur le bulletin, la lettre choisie s'écrit après un « + » "
           "(« +? » pour un joker du stock)."),
        _FREE_LETTERS,
        _DUPLICATE_FAULTS,
    ),
    example="H4 RESTAIT 70 +T\n",
    example_notes=(N_("Le tirage était AEIRST ; le second T de RESTAIT est la lettre choisie "
                      "dans le stock."),),
    ranking=_DUPLICATE_RANKING,
))
_add(GameRulesPage(
    key="duplicate_superjoker",
    title=N_("Duplicate Superjoker"),
    example_kind=BULLETIN,
    summary=N_("5 lettres tirées, 2 choisies par chacun dans le stock."),
    paragraphs=(
        _DUPLICATE_COMMON,
        N_("L'arbitre tire 5 lettres. Chaque joueur les complète avec deux lettres de son "
           "choix prises dans le stock, écrites après un « + » sur le bulletin."),
        _FREE_LETTERS,
        _DUPLICATE_FAULTS,
    ),
    example="H4 RESTAIT 70 +AT\n",
    example_notes=(N_("Le tirage était EIRST ; le A et le second T sont les deux lettres "
                      "choisies."),),
    ranking=_DUPLICATE_RANKING,
))
_add(GameRulesPage(
    key="duplicate_metagramme",
    title=N_("Duplicate Métagramme"),
    example_kind=BULLETIN,
    summary=N_("7 lettres tirées ; chacun peut en rendre une et la remplacer par une lettre "
               "du stock."),
    paragraphs=(
        _DUPLICATE_COMMON,
        N_("L'arbitre tire 7 lettres. Vous pouvez en rendre une (écrite après un « - ») et "
           "prendre à sa place une lettre du stock (écrite après un « + ») ; sans échange, le "
           "bulletin est celui du Duplicate."),
        _FREE_LETTERS,
        _DUPLICATE_FAULTS,
    ),
    example="H4 KETAMINE 92 -N +K\n",
    example_notes=(N_("Le N du tirage est rendu, le K pris dans le stock à sa place."),),
    ranking=_DUPLICATE_RANKING,
))
_add(GameRulesPage(
    key="duplicate_elliptique",
    title=N_("Duplicate Elliptique"),
    example_kind=BULLETIN,
    summary=N_("8 lettres tirées, 7 au plus utilisables."),
    paragraphs=(
        _DUPLICATE_COMMON,
        N_("L'arbitre tire 8 lettres ; un coup en pose 7 au plus, et le scrabble (prime de "
           "50 points) se fait avec 7 lettres. Le bulletin est celui du Duplicate."),
        N_("Les lettres que le top n'utilise pas restent, complétées jusqu'à 8 pour le "
           "tirage suivant."),
        _DUPLICATE_FAULTS,
    ),
    example="H4 RESTAIt 70\n",
    ranking=_DUPLICATE_RANKING,
))
_add(GameRulesPage(
    key="partie_superscrabble",
    title=N_("Partie de Superscrabble"),
    example_kind=BULLETIN,
    summary=N_("À chaque tour 7 lettres sur la grille commune : trouver tous les scrabbles."),
    paragraphs=(
        N_("L'arbitre pose un mot de 2 lettres et annonce le nombre de tours. À chaque tour "
           "il annonce 7 lettres, et chacun cherche tous les scrabbles (les 7 lettres posées) "
           "possibles sur la grille commune. Les scores ne se calculent pas."),
        N_("Le bulletin donne les scrabbles trouvés, chacun avec sa référence, séparés par "
           "des virgules, puis « ; » et leur nombre. Chaque scrabble valable et différent "
           "vaut un point ; un nombre absent ou faux vaut un avertissement."),
        N_("Après la clôture, l'arbitre choisit le scrabble que tout le monde pose, et le "
           "tour suivant part de cette grille."),
    ),
    example="H4 RESTAIT, 8C RESTAIT ; 2\n",
    example_notes=(N_("Deux scrabbles, RESTAIT en H4 et en 8C : le nombre écrit est 2."),),
    ranking=N_("Classement : par nombre total de scrabbles valables sur tous les tours, les "
               "pénalités d'avertissements déduites."),
))
_add(GameRulesPage(
    key="correspondance",
    title=N_("Partie par correspondance"),
    example_kind=MOVE,
    summary=N_("Une partie libre à deux, ROUGE contre BLEU, les lettres venant d'une rangée "
               "fixée d'avance."),
    paragraphs=(
        N_("L'arbitre range toutes les lettres en une rangée, la même pour toute une série. "
           "ROUGE prend les lettres 1 à 7, BLEU les lettres 8 à 14 ; après chaque coup, le "
           "joueur complète son chevalet avec les lettres suivantes de la rangée. On ne peut "
           "pas échanger de lettres."),
        N_("Chacun joue à son tour, par le site ou par courriel, avant l'échéance du coup : "
           "la référence et le mot (le joker en minuscule), ou « passe »."),
        N_("Pour compenser le trait de ROUGE, les scores inscrits sont plafonnés aux deux "
           "premiers tours : 10 puis 30 points pour ROUGE, 20 puis 40 pour BLEU."),
        N_("La partie finit quand un joueur a vidé son chevalet une fois la rangée épuisée, "
           "ou après quatre passes de suite. Chacun perd la valeur de ses lettres restantes, "
           "que gagne celui qui a fini."),
    ),
    example="H8 FICHERA\n",
    example_notes=(N_("FICHERA posé horizontalement à partir de H8."),),
    ranking=N_("Classement de la série : victoire 1 point, nul ½, défaite 0 ; puis l'écart "
               "de points et le coefficient."),
))

def page_for(key: str) -> GameRulesPage | None:
    return PAGES.get(key)


def variant_page(variant: str) -> str:
    """The rules page key of a Duplicate game of this variant (the round game's
    ``rules_page``; the plain Duplicate's for a variant this server does not know)."""
    try:
        return round_game(str(variant)).rules_page
    except DuplicateError:
        return "duplicate"


def variant_label(variant: str) -> str:
    """The French name of a Duplicate game of this variant (its rules page's title)."""
    return PAGES[variant_page(variant)].label


def is_anticipation_family(key: str) -> bool:
    fam = family_or_none(key)
    return fam is not None and fam.anticipation
