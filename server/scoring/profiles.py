"""Convention profiles: what each federation or scoring program settles that the rules leave open.

The Danish regulations (DBf) are the default and are followed exactly. A club reproducing what
its own program published chooses that program's profile; every setting names where the
convention is documented, or the real published file that shows it (`Profile.sources`), and
says plainly when only the issue that asked for it states it (nothing better was found).

The scoring modules never read a profile: `Profile.options` turns one into the explicit
`ScoringOptions` parameters they take (board.py, matchpoints.py, event.py), and the handicap
share is applied where percentages are shown (server/io/scorefile.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType

from .board import ScoringOptions
from .exact import Rounding
from .methods import Method

#: The settings a profile gives, in the order they are listed.
SETTINGS = (
    "butler_round_datum",
    "board_rounding",
    "scaled_rounding",
    "factor_artificial",
    "sitout_scaling",
    "sitout_factoring",
    "handicap_share",
    "matchpoints",
)

FFB_FILE = (
    "tests/data/published/ffb_open2_dn1_finale_2022_seance1.pbn (Magic Contest 4.13.3.4; "
    "github.com/lucbellicaud/bridgetrainer @ 36207bbf0f8aef905625741be27544b1401e476f, MIT): "
    "the 44 published totals are the sums of the boards' matchpoints rounded to 0.1"
)
COMPSCORE_FILE = (
    "github.com/abftech/cobalt results/tests/test_files/butler_howell.xml @ "
    "4bbeb62232c8851f62c638262f02ab49ee29d17e (Compscore3, Butler pairs; read, not committed: "
    "no licence found): the published Butler IMPs of all 35 boards are the IMPs against the "
    "datum rounded to 10, dropping one score at each end; rounding the difference instead "
    "(§ 204B2) gives them on 29 boards only. Read and scored here from its travellers: "
    "under this profile all 140 lines' IMPs and all 8 totals agree, under DBf 131 and 2 "
    "(the Mitchell butler_mitchell.xml agrees under both: 245 lines, 14 totals)"
)
NZ_HANDICAP_FILE = (
    "github.com/duaneg/scorer-to-usebio tests/integration_tests/converted/handicap_pairs.xml "
    "@ 1888aeae7788c8c487a14fe9e376dd9a1949bbd3 (NZ Scorer, Whitehead Trophy Handicap Pairs "
    "2015; AGPL-3.0, read, not committed): every pair's <PERCENTAGE> is its raw matchpoint "
    "percentage plus half its <HANDICAP> (e.g. pair 2 NS: 53.69 - 6.65/2 = 50.37; scored "
    "here from its travellers, 18 of 18 pairs agree), and <PLACE> is the scratch place"
)
EBUSCORE_HANDICAP = (
    "EBUScore wiki, Handicaps (ebu.co.uk/ebuscore-wiki/handicaps): the '50%' option adjusts a "
    "pair by the average of its players' handicaps, i.e. half the pair's sum; before 1.1.8 it "
    "was the only one (the '100%' option, ScoreBridge's, gives the sum)"
)
ACBL_FILES = (
    "tests/data/published/acbl_livermore_2026-04-20_monday_morning_pairs.json and "
    "acbl_stoneridge_creek_2026-04-15_pairs.json (ACBLscore 833, ACBL Live for Clubs; "
    "github.com/Rick-Wilson/acbl-live-fetch @ 81f7d64bc60c072662728752c6d68ee7867f06cf, "
    "Unlicense): every pair that sat out is published with its total factored up to the "
    "event's boards (raw x boards / boards played, to 0.01, halves up: 32.625 -> 32.63) and "
    "the percentage of that rounded total over boards x top; so factored, all 25 + 11 "
    "published totals and percentages are reproduced"
)
RUTER_BUTLER_FILE = (
    "tests/data/published/ruter_rekrutteringsklubben_ruter7_2012-01-24_butler.pbn (Ruter i "
    "Norge 4.4, Butler pairs; github.com/richardschneider/pbn test/sample/ruter71.pbn @ "
    "cc2928f3c3e2915e46c6b57779880e134766eb9a, MIT): every board's published ButlerDatum is "
    "the mean less one score at each end rounded to 10 (board 1: -85 -> -90), and the IMPs "
    "are taken against it; so rounded, all 168 lines' IMPs and all 16 totals are reproduced "
    "(rounding the difference instead, § 204B2, moves 5 lines and 8 totals)"
)
RUTER_MP_FILE = (
    "tests/data/published/ruter_nbf_ostfold_follo_2022-05-08_km_par.pbn (Ruter i Norge "
    "4.14.2, matchpoint pairs; github.com/gerhardsletten/jrbridge-pbn-api "
    "api/_src/__tests__/sample/pairs.pbn @ 79bcc82bdd5956c0fb5a2fbd123859d8d050cc51, ISC): "
    "Ruter's MP1 matchpoints are 2-1-0 less the comparisons (+1, 0, -1 a comparison), so its "
    "percentages are the 2-1-0 ones: 250 of 252 lines and, with its board 37, all 8 "
    "totals and percentages are DBf's; no board is rounded or factored differently there"
)
UNDOCUMENTED = "as the project's requirements state it (the program's own document was not found)"


@dataclass(frozen=True, slots=True)
class Profile:
    """A named set of conventions, each with its source.

    `butler_round_datum`: Butler rounds the datum to 10 (else the difference, § 204B2).
    `board_rounding`: each side's score on a board rounded before the totals (§ X78C1: none).
    `scaled_rounding`: factored matchpoints rounded or truncated (§ X78B: exact).
    `factor_artificial`: the results beside an artificial score factored up (§ X78A3).
    `sitout_scaling`: IMP totals of pairs scored on fewer boards scaled up (§ X78A5: no).
    `sitout_factoring`: matchpoint totals of pairs scored on fewer boards factored up and
    rounded, the percentage taken from the rounded total (§ X78A5/§ X78C: no; exact).
    `handicap_share`: the part of a pair's handicap added to its published percentage.
    `matchpoints`: the matchpoint scale when a file says only "matchpoints" and no method is
    given (`traveller score` without --method); a live event names its scale itself.
    """

    name: str
    title: str
    butler_round_datum: bool = False
    board_rounding: Rounding | None = None
    scaled_rounding: Rounding | None = None
    factor_artificial: bool = True
    sitout_scaling: bool = False
    sitout_factoring: Rounding | None = None
    handicap_share: Fraction = Fraction(1, 2)
    matchpoints: Method = Method.MATCHPOINTS
    sources: Mapping[str, str] = field(default_factory=dict)
    """Setting -> where the convention is documented or shown."""

    def options(self, base: ScoringOptions = ScoringOptions()) -> ScoringOptions:
        """The scoring options of an event scored under this profile."""
        return replace(
            base,
            butler_round_datum=self.butler_round_datum,
            board_rounding=self.board_rounding,
            scaled_rounding=self.scaled_rounding,
            factor_artificial=self.factor_artificial,
            sitout_scaling=self.sitout_scaling,
            sitout_factoring=self.sitout_factoring,
        )

    def differences(self) -> dict[str, object]:
        """The settings in which this profile differs from DBf."""
        return {
            name: getattr(self, name)
            for name in SETTINGS
            if getattr(self, name) != getattr(DBF, name)
        }

    def handicapped(self, percent: Fraction | None, handicap: Fraction | None) -> Fraction | None:
        """The published percentage of a handicap pair: raw plus its share of the handicap."""
        if percent is None or handicap is None:
            return None
        return percent + self.handicap_share * handicap


def _sources(**given: str) -> Mapping[str, str]:
    return MappingProxyType(dict(given))


DBF = Profile(
    name="dbf",
    title="DBf (Danmarks Bridgeforbund)",
    sources=_sources(
        butler_round_datum="DBf § 204B2: the difference to the datum is rounded to 10",
        board_rounding="DBf § X78C1: no rounding on the boards",
        scaled_rounding="DBf § X78B and § X78C1: Neuberg exact, no rounding on the boards",
        factor_artificial="DBf § X78A3: the others are matchpointed among themselves and "
        "factored up to the full field (§ X78B)",
        sitout_scaling="DBf § X78A5: a pair sitting out gets no score for the board",
        sitout_factoring="DBf § X78A5 and § X78C: a pair sitting out gets no score for the "
        "board, and its total is a percentage of the boards it played, not rounded",
        handicap_share="not in the DBf regulations (they have no handicap events); the "
        "share the programs that publish handicap results use: " + NZ_HANDICAP_FILE,
        matchpoints="DBf § X78 (Law 78A): 2-1-0 per comparison",
    ),
)

EBU = Profile(
    name="ebu",
    title="EBU / EBUScore",
    sources=_sources(handicap_share=EBUSCORE_HANDICAP),
)

ABF = Profile(
    name="abf",
    title="ABF / Compscore",
    butler_round_datum=True,
    sources=_sources(butler_round_datum=COMPSCORE_FILE),
)

ACBL = Profile(
    name="acbl",
    title="ACBL / ACBLscore",
    matchpoints=Method.MATCHPOINTS_AMERICAN,
    sitout_factoring=Rounding(2, "half-away"),
    sources=_sources(
        sitout_factoring=ACBL_FILES,
        matchpoints="ACBL: 1-½-0 matchpoints; factoring M = (N·S)/n + (N-n)/2n, which is "
        "Neuberg on that scale (asecomputing.com/HelpFiles/handleaveragescores.htm, citing "
        "the ACBL Bulletin, June 1991, pp. 15-16)",
    ),
)

FFB = Profile(
    name="ffb",
    title="FFB / Magic Contest",
    board_rounding=Rounding(1, "half-away"),
    sources=_sources(board_rounding=FFB_FILE),
)

NZ = Profile(
    name="nz",
    title="NZ Bridge / NZ Scorer",
    scaled_rounding=Rounding(1, "truncate"),
    sources=_sources(
        scaled_rounding=UNDOCUMENTED + ": NZ Scorer truncates factored matchpoints to 0.1",
        handicap_share=NZ_HANDICAP_FILE,
    ),
)

BRIAN = Profile(
    name="brian",
    title="BriAn",
    factor_artificial=False,
    sources=_sources(
        factor_artificial=UNDOCUMENTED + ": BriAn matchpoints the real results among themselves "
        "without factoring them up, and the artificial score takes its share (BriAn User "
        "Manual, brianbridge.net, 'Clearing, entering and adjusting results', names the "
        "adjustment but not the arithmetic)",
    ),
)

PIANOLA = Profile(
    name="pianola",
    title="Pianola",
    sitout_scaling=True,
    sources=_sources(
        sitout_scaling=UNDOCUMENTED + ": Pianola scales the cross-IMP totals of pairs who sat out; "
        "a club's description of the same convention: 'The total is adjusted if some pairs "
        "played fewer boards than others' (bridgewebs.com/chislehurst/page11.html)",
    ),
)

RUTER = Profile(
    name="ruter",
    title="NBF / Ruter i Norge",
    butler_round_datum=True,
    sources=_sources(butler_round_datum=RUTER_BUTLER_FILE, matchpoints=RUTER_MP_FILE),
)

PROFILES: Mapping[str, Profile] = MappingProxyType(
    {p.name: p for p in (DBF, EBU, ABF, ACBL, FFB, NZ, BRIAN, PIANOLA, RUTER)}
)
DEFAULT = DBF


def get_profile(name: str | None) -> Profile:
    """The profile of that name (any case); DBf for None or ""; ValueError names the known."""
    if not name:
        return DEFAULT
    found = PROFILES.get(name.strip().lower())
    if found is None:
        raise ValueError(f"unknown profile {name!r}: one of {', '.join(PROFILES)}")
    return found


#: Words in a file's program name (PBN [Application]/[Generator], USEBIO PROGRAM_NAME) and
#: the profile they suggest, checked in this order (Compscore writes "Pianola" in its
#: PROGRAM_VERSION, so Compscore comes first; Magic Contest, Ruter's French edition, writes
#: "brenning.se" as Ruter does, so the word is the program's name, not its maker's).
PROGRAM_WORDS: tuple[tuple[str, Profile], ...] = (
    ("magic contest", FFB),
    ("compscore", ABF),
    ("ebuscore", EBU),
    ("ebu score", EBU),
    ("pairsscorer", EBU),
    ("acblscore", ACBL),
    ("nz scorer", NZ),
    ("brian", BRIAN),
    ("pianola", PIANOLA),
    ("ruter", RUTER),
)


def suggest_profile(program: str) -> Profile | None:
    """The profile of the program that wrote a file, or None when it is not one we know.

    NZ Scorer names itself just "Scorer" in USEBIO (PROGRAM_NAME), so that word alone counts.
    """
    text = " ".join(program.lower().split())
    if not text:
        return None
    for word, profile in PROGRAM_WORDS:
        if word in text:
            return profile
    if text == "scorer" or text.startswith("scorer "):
        return NZ
    return None
