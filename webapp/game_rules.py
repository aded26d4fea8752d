"""The rules of each game type explained to players in plain French (the « Règles » pages),
with an example feuille de route that the sheet parser reads without error.

The content follows the FRSc rules (docs/RULES.md §5–§7, from the Romanian federation's
French text) and the sheet format of docs/PUZZLES.md §4. Keys are ``puzzles.problem.GameType``
values; the titles are the labels of the game-type table (``puzzles.families``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from puzzles.families import family, family_or_none

COLUMNS = ("Coup", "Lettres", "Réf.", "Mot", "Score", "Cumul")
HEADER = " | ".join(COLUMNS)


@dataclass(frozen=True)
class GameRulesPage:
    key: str
    summary: str  # one sentence, shown in the index
    paragraphs: tuple[str, ...]
    example: str  # a feuille de route, as a player writes it
    example_notes: tuple[str, ...] = field(default_factory=tuple)
    ranking: str = "Classement : par cumul corrigé décroissant ; à égalité, la feuille reçue " \
                   "la première passe devant."

    @property
    def label(self) -> str:
        return family(self.key).label


_SHEET_WORDS = (
    "Chaque ligne de la feuille de route donne, dans l'ordre : le numéro du coup, les lettres "
    "prises (le joker s'écrit ?), la référence (H8 : ligne H, colonne 8, mot horizontal ; "
    "8H : mot vertical), le mot (le joker en minuscule : ChACUNE), le score et, si vous le "
    "souhaitez, le cumul.",
    "Un cumul faux ou absent n'est pas une faute : l'arbitre le recalcule. Un score faux ou "
    "absent vaut un avertissement technique ; c'est le score exact qui compte.",
    "Un mot non valable ou mal placé vaut zéro, et tout mot posé ensuite qui s'y appuie, ou "
    "qui n'aurait pas pu être posé sans lui, vaut zéro aussi.",
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
    "Coup 1 en deux mots : écrivez deux lignes portant le numéro 1. La première est le mot "
    "du groupe 1 (2 à 4 lettres, posé en premier), la seconde le mot du groupe de 7 "
    "lettres. Mettez le score de chaque mot dans sa ligne et, dans la colonne Cumul de la "
    "seconde ligne, la somme des deux scores (« ainsi que le cumul de ces deux scores »). "
    "Une erreur dans cette somme est une erreur de score du billet.",
    "Vous pouvez aussi ne jouer qu'un mot au coup 1, avec le groupe de 7 lettres : une seule "
    "ligne numérotée 1 ; les lettres du groupe 1 sont alors éliminées.",
)

_ANNUL = (
    "À tout moment vous pouvez annuler un ou plusieurs coups antérieurs : écrivez « Annuler "
    "coup(s) … » sur le billet du coup en cours (une ligne avant ce coup). Les mots annulés "
    "sont retirés de votre grille, valent zéro et leurs lettres sont perdues ; les cases "
    "libérées peuvent resservir."
)

PAGES: dict[str, GameRulesPage] = {}


def _add(page: GameRulesPage) -> None:
    PAGES[page.key] = page


_add(GameRulesPage(
    key="integral",
    summary="Tout le sac, une grille vierge : le plus grand cumul possible.",
    paragraphs=(
        "Vous partez d'une grille vierge et disposez de toutes les lettres du jeu (102 en "
        "français, 100 en roumain, jokers compris). Vous posez des mots les uns après les "
        "autres jusqu'à épuisement des lettres, ou jusqu'à ce que vous jugiez bon de vous "
        "arrêter.",
        "À chaque coup vous prenez de 1 à 7 lettres (au moins 2 au premier coup), sans autre "
        "contrainte de voyelles ou de consonnes. La valeur des lettres non utilisées n'est "
        "pas retirée du total.",
        "Il n'y a ni ramassage après chaque coup ni temps par coup : vous envoyez la solution "
        "entière avant la clôture, plus tôt si vous le souhaitez.",
        *_SHEET_WORDS,
    ),
    example=_INTEGRAL_EXAMPLE,
    example_notes=("FICHERA en H8 rapporte 82 points (scrabble compris), puis WUS en 15F 84 : "
                   "cumul 166.",),
))
_add(GameRulesPage(
    key="integral_partiel",
    summary="Un stock de 21 à 35 lettres tirées par l'arbitre.",
    paragraphs=(
        "L'arbitre tire de 21 à 35 lettres et les affiche : c'est votre stock. Comme à "
        "l'Intégral, vous construisez votre grille à partir d'une grille vierge, de 1 à 7 "
        "lettres par coup (au moins 2 au premier).",
        "Temps de jeu en salle : 60 minutes pour 21 à 25 lettres, 75 pour 26 à 30, 90 pour "
        "31 à 35 ; par correspondance, la clôture annoncée fait foi.",
        *_SHEET_WORDS,
    ),
    example=_INTEGRAL_EXAMPLE,
))
_add(GameRulesPage(
    key="rangee",
    summary="Une rangée de 31 à 45 lettres à prendre dans l'ordre, sans en sauter.",
    paragraphs=(
        "L'arbitre tire de 31 à 45 lettres et les affiche dans l'ordre du tirage : c'est une "
        "rangée dont l'ordre ne change plus.",
        "Règle : à chaque coup vous utilisez les 1 à 7 premières lettres de ce qui reste de la "
        "rangée (2 à 7 au premier coup), sans jamais sauter une lettre. Un mot qui enfreint "
        "cette règle est annulé, et le reste de la solution avec lui.",
        "Recopiez la rangée en tête de votre feuille de route (ligne « Rangée : »).",
        *_SHEET_WORDS,
    ),
    example=f"Rangée: ACEFHIRSUW\n{_INTEGRAL_EXAMPLE}",
))
_add(GameRulesPage(
    key="anticipation",
    summary="15 groupes annoncés d'avance, 14 coups : préparer les gros coups.",
    paragraphs=(
        "L'arbitre répartit tout le sac en 15 groupes numérotés : le groupe 1 de 4 lettres "
        "(2 en roumain : une voyelle et une consonne), les 14 autres de 7 lettres. Les numéros "
        "servent seulement à nommer les groupes : ce n'est pas l'ordre de jeu.",
        "Chacun construit sa propre grille : il n'y a pas de mot « top » commun. Au coup 1, "
        "l'arbitre annonce le groupe 1 et un groupe de 7 lettres tiré au sort ; à chacun des "
        "coups 2 à 14, un autre groupe. Les lettres d'un groupe que vous n'utilisez pas sont "
        "éliminées.",
        *_ANTICIPATION_MOVE1,
        _ANNUL,
        "Par correspondance, les groupes peuvent être annoncés coup par coup : chaque billet "
        "compte à l'heure où il a été reçu.",
        *_SHEET_WORDS,
    ),
    example=_ANTICIPATION_EXAMPLE,
    example_notes=(
        "Coup 1 en deux mots : TAS (groupe 1) vaut 6, puis LES (groupe 2) vaut 5 ; la colonne "
        "Cumul de la seconde ligne porte leur somme, 6 + 5 = 11.",
        "« Annuler coup 2 » avant le coup 3 retire FICHERA de la grille avant que WUS soit "
        "posé.",
    ),
))
_add(GameRulesPage(
    key="anticipation_avocalique",
    summary="Anticipation dont l'arbitre n'annonce que les consonnes.",
    paragraphs=(
        "Les règles de l'Anticipation s'appliquent, mais l'arbitre n'annonce que les "
        "consonnes de chaque groupe. Vous complétez chaque groupe à votre gré avec les "
        "voyelles du stock, jusqu'à 7 lettres (4 pour le groupe 1) ; les jokers (et le Y en "
        "français) sont dans ce stock et peuvent servir de voyelle ou de consonne.",
        "Si vous annulez un coup, ses consonnes et ses voyelles sont éliminées.",
        *_ANTICIPATION_MOVE1,
        *_SHEET_WORDS,
    ),
    example=_ANTICIPATION_EXAMPLE,
))
_add(GameRulesPage(
    key="exclusif_resistance",
    summary="À chaque coup un scrabble, sinon vous êtes éliminé (mort subite).",
    paragraphs=(
        "Chacun des 14 groupes de 7 lettres permet au moins un scrabble sec. À chaque coup "
        "vous devez placer les 7 lettres. Les scores ne comptent pas : chaque scrabble vaut "
        "un point de classement.",
        "Qui ne peut placer aucun scrabble à un coup sort du jeu. Les pénalités sont en "
        "points de classement.",
        *_SHEET_WORDS[:1],
    ),
    example=f"{HEADER}\n1 G5 ACEFHIR H8 FICHERA\n2 G9 AEILNST 9B ENTAILS\n",
    ranking="Classement : par nombre de scrabbles (points de classement) décroissant.",
))
_add(GameRulesPage(
    key="exclusif_fond",
    summary="À chaque coup un scrabble compté normalement, ou « Passe ».",
    paragraphs=(
        "À chaque coup vous devez placer les 7 lettres, et le scrabble est compté "
        "normalement. Si vous ne pouvez en placer aucun, écrivez « Passe » : ce coup vaut 0.",
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G5 ACEFHIR H8 FICHERA 82 82\n2 G9 Passe\n",
))
_add(GameRulesPage(
    key="anticipation_aveugle",
    summary="Anticipation avec vos propres 15 groupes, remis sous enveloppe.",
    paragraphs=(
        "Vous composez vous-même les 15 groupes (le groupe 1 de 4 lettres, puis 14 de 7), en "
        "respectant les règles de l'Anticipation, et vous les numérotez en commençant par le "
        "groupe de 4 lettres. À chaque coup l'arbitre annonce un numéro (deux au coup 1, dont "
        "le 1) : vous jouez votre groupe portant ce numéro.",
        "Écrivez vos groupes en tête de la feuille (ligne « Groupes : 1=ABCD 2=EFGHIJK … »).",
        *_ANTICIPATION_MOVE1,
        *_SHEET_WORDS,
    ),
    example=_ANTICIPATION_EXAMPLE,
))
_add(GameRulesPage(
    key="serie_maximaux",
    summary="7 groupes de 7 lettres dans l'ordre de votre choix : le top des tops.",
    paragraphs=(
        "L'arbitre tire 7 groupes de 7 lettres. Vous posez un mot par groupe, dans l'ordre "
        "que vous voulez ; les lettres non utilisées d'un groupe sont éliminées, et il n'est "
        "pas obligatoire d'utiliser tous les groupes.",
        "Le but : à chaque coup, le score le plus haut possible avec n'importe lequel des "
        "groupes restants. Temps de jeu en salle : 60 minutes.",
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G3 ACEFHIR H8 FICHERA 82 82\n2 G6 SUW 15F WUS 84 166\n",
    ranking="Classement : d'abord par le score du coup 1, puis à égalité par celui du coup "
            "2, et ainsi de suite ; les sanctions sont en points de classement.",
))
_add(GameRulesPage(
    key="serie_maximaux_consonnes",
    summary="Série de maximaux dont seules les consonnes sont annoncées.",
    paragraphs=(
        "Comme la Série de maximaux, mais l'arbitre n'annonce que les consonnes de chaque "
        "groupe ; vous complétez à votre gré avec les lettres du stock, jusqu'à 7 lettres "
        "par groupe (voir l'Anticipation avocalique).",
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G3 ACEFHIR H8 FICHERA 82 82\n",
    ranking="Classement : d'abord par le score du coup 1, puis du coup 2, et ainsi de suite.",
))
_add(GameRulesPage(
    key="superscrabble",
    summary="Une grille donnée, 7 lettres : trouver le plus de scrabbles possible.",
    paragraphs=(
        "Sur la grille donnée, trouvez le plus grand nombre de scrabbles (les 7 lettres "
        "posées) avec le même tirage. Après chaque scrabble la grille revient à son état de "
        "départ.",
        "Chaque scrabble vaut un point de classement, quel que soit son score. Le même mot "
        "peut compter à des endroits différents. Au même endroit, le joker mis pour la même "
        "lettre à des places différentes ne compte qu'une fois (ReLEVER, RELeVER) ; mis pour "
        "des lettres différentes, chaque mot compte (LEVERAi, LEVERAs).",
        "Sanctions : un point de classement au 4e avertissement, puis un de plus tous les "
        "trois avertissements.",
        "Écrivez un scrabble par ligne : la référence puis le mot.",
    ),
    example="Scrabbles:\n1 10G LEVERAi\n2 10G LEVERAs\n",
    ranking="Classement : par nombre de scrabbles valables ; à égalité, la feuille reçue la "
            "première passe devant.",
))
_add(GameRulesPage(
    key="superscrabble_incomplet",
    summary="Construire sa grille, puis y placer le plus de scrabbles avec 7 lettres.",
    paragraphs=(
        "L'arbitre tire 7 lettres. Vous construisez vous-même, avec les autres lettres du "
        "sac et selon les règles de l'Intégral, la grille qui permettra le plus de scrabbles "
        "avec ce tirage, puis vous donnez la liste de ces scrabbles.",
        "La feuille porte d'abord la construction (une ligne par coup), puis une ligne "
        "« Scrabbles : » et un scrabble par ligne. Les erreurs de construction sont traitées "
        "comme à l'Intégral.",
    ),
    example=f"{HEADER}\n1 ACEFHIR H8 FICHERA 82 82\nScrabbles:\n1 10G LEVERAi\n",
    ranking="Classement : par nombre de scrabbles ; à égalité, celui qui a utilisé le moins "
            "de lettres pour sa construction passe devant.",
))
_add(GameRulesPage(
    key="n_scrabble",
    summary="N groupes de 7 lettres, un mot par groupe, sur votre propre grille.",
    paragraphs=(
        "L'arbitre tire et affiche N groupes de 7 lettres. Vous posez un mot par groupe sur "
        "votre grille ; les lettres non utilisées sont éliminées. L'ordre des groupes est à "
        "votre choix, ou imposé par l'arbitre (il le dit alors dans l'énoncé).",
        "Temps de jeu en salle : 60 minutes.",
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G2 ACEFHIR H8 FICHERA 82 82\n2 G1 SUW 15F WUS 84 166\n",
))
_add(GameRulesPage(
    key="n_scrabble_consonnes",
    summary="N-Scrabble dont seules les consonnes sont annoncées.",
    paragraphs=(
        "Comme le N-Scrabble, mais l'arbitre n'annonce que les consonnes de chaque groupe ; "
        "vous complétez à votre gré avec les lettres du stock (voir l'Anticipation "
        "avocalique).",
        *_SHEET_WORDS,
    ),
    example=f"{HEADER}\n1 G2 ACEFHIR H8 FICHERA 82 82\n",
))


def page_for(key: str) -> GameRulesPage | None:
    return PAGES.get(key)


def is_anticipation_family(key: str) -> bool:
    fam = family_or_none(key)
    return fam is not None and fam.anticipation
