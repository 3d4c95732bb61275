"""Plain-language names for the report: every rules switch reading and every alternative data
table, as a designer reads them, with the rulebook meaning behind each.

The code names (``four_critical=immediate``, ``machines-d``, ``sides-common``) stay in the CSV
tables, where a script needs them; the report's text, tables and charts show ``plain(name)``, and
its glossary section (``glossary_rows``) maps each name it used to its meaning. A rules file of a
variants study is named by its first comment line (``rules_file_title``), its file name only when
it has none.

The meanings come from docs/bethel_woods.md and docs/benevolent.md (Switches, Alternative data).
"""
from __future__ import annotations

from pathlib import Path

from simcore.games import GAMES

# each game's name as the report writes it
GAME_NAMES = {g.name: g.title for g in GAMES.values()}

# name -> (short plain name for tables and charts, what it means in the rulebook's terms)
GLOSSARY = {
    # Bethel Woods switches (docs/bethel_woods.md#switches): the other reading of each
    "rone_redirect=place": (
        "Rone lets redirected malfunctions land",
        "Rone's protected machine still takes a malfunction that a critical tile redirects onto it "
        "(default: Rone discards it too)"),
    "four_critical=immediate": (
        "lose at once on the 4th critical machine",
        "the game is lost the moment a 4th machine goes critical, also during placement "
        "(default: checked at the end of the player's turn)"),
    "ability_window=before_after": (
        "abilities only before or after moving",
        "a character ability may be used only before picking up workers or after the last one is "
        "placed (default: also between drops)"),
    "long_group=stops": (
        "a group of 7+ workers stops after one lap",
        "a group of more than 6 workers stops where it started after 6 drops "
        "(default: it goes on round the ring)"),
    "rone_cost=any_two": (
        "Rone pays any 2 knowledge",
        "Rone's ability costs any 2 knowledge tokens (default: 2 of different types)"),
    # Bethel Woods alternative data tables (docs/bethel_woods.md#alternative-data---rules-name)
    "machines-b": ("machine types, split B",
                   "machines 2-4 show Mechanical+Structural, Structural+Digital, Mechanical+Electrical"),
    "machines-c": ("machine types, split C",
                   "machines 2-4 show Mechanical+Digital, Mechanical+Structural, Structural+Electrical"),
    "machines-d": ("machine types, split D",
                   "machines 2-4 show Mechanical+Structural, Digital+Electrical, Mechanical+Structural "
                   "(two machines alike)"),
    "malfunctions-own5": ("malfunctions lean to a machine's own types",
                          "5 of each of a machine's two types in the bag, 2 of each other type"),
    "malfunctions-other4": ("malfunctions lean to other types",
                            "3 of each of a machine's own types, 4 of each other type"),
    "malfunctions-uneven": ("uneven malfunctions per machine",
                            "machines 1, 3, 5 have 16 malfunctions, machines 2, 4, 6 have 12"),
    "orphanage-shift2": ("Orphanage icons turned by 2",
                         "Orphanage section i accepts the types of machine i+2"),
    "orphanage-shift4": ("Orphanage icons turned by 4",
                         "Orphanage section i accepts the types of machine i+4"),
    "orphanage-mirror": ("Orphanage icons mirrored",
                         "Orphanage section i accepts the types of machine -i"),
    # Benevolent switches (docs/benevolent.md#switches)
    "gather_tile=optional": (
        "gather tile may be ignored",
        "with the gather tile a player may also gather plainly (default: must put or take a leaf)"),
    "empty_gift=offered": (
        "actions with no gift left are offered",
        "an action whose only yield is a gift nobody can give may still be taken, for nothing "
        "(default: not offered)"),
    # Benevolent alternative data tables (docs/benevolent.md#alternative-data---rules-name)
    "layout-tight": ("compact forest layout", "the forest segments overlap where they touch most"),
    "layout-stacked": ("stacked forest layout", "the forest segments lie one above the other"),
    "layout-row": ("forest in a row", "the forest segments lie end to end: a long, thin forest"),
    "sides-shuffled": ("hex types shuffled on each side",
                       "each segment side shows the same types at other places"),
    "sides-common": ("common hex types on every side",
                     "Meadow, Nest and Ring of Stones on every side; Stone Altar, Pond, Wooden Table "
                     "each missing from two sides"),
    "sides-gray3": ("three gray Footsteps per side",
                    "three printed gray Footsteps on each segment side instead of two"),
    "dream-b": ("Dream Path B", "position 1 back to 0 gives a Clover, not a Feather"),
    "dream-c": ("Dream Path C", "from position 3, back to 2 gives a Figurine and back to 0 an Amber"),
    "dream-d": ("Dream Path D (slower)",
                "0 to 1 gives nothing, 1 back to 0 a Clover, 3 goes back to 1 with the Amber"),
    "secrets-reversed": ("Secret tiles paired in reverse",
                         "tile k carries permanent Secret 8 - k on its back"),
    "secrets-shift": ("Secret tiles paired shifted",
                      "tile k carries permanent Secret k + 3 (mod 9) on its back"),
    "secrets-themed": ("Secret tiles paired by theme",
                       "related single-use and permanent Secrets share a tile"),
    "exchange-lean": ("leaner exchange tiles",
                      "each exchange tile takes the gift one step lower: 2 Clovers for a Feather, "
                      "2 Feathers for a Crystal, Crystal and Feather for an Amber"),
    "exchange-rich": ("richer exchange tiles",
                      "each exchange tile takes the gift one step higher: 2 Clovers for an Amber, "
                      "2 Feathers for a Figurine, Crystal and Clover for a Figurine"),
    "exchange-pairs": ("exchange tiles all pairs",
                       "every exchange tile asks two of one gift: 2 Clovers for a Crystal, "
                       "2 Feathers for an Amber, 2 Crystals for a Figurine"),
}


def plain(name: str) -> str:
    """The plain name of a switch reading or alternative table (the code name when unknown)."""
    return GLOSSARY.get(str(name), (str(name), ""))[0]


def meaning(name: str) -> str:
    return GLOSSARY.get(str(name), ("", ""))[1]


def rules_file_title(path) -> str:
    """A rules file's plain name: its first comment line (without '#' and a closing period), or
    its file name with spaces for underscores when it has none."""
    p = Path(path)
    try:
        for line in p.read_text(encoding="utf-8").splitlines():
            s = line.strip()
            if s.startswith("#"):
                t = s.lstrip("#").strip()
                if t:
                    return t.split(" (")[0].rstrip(".")
            elif s:
                break
    except (OSError, UnicodeDecodeError):
        pass
    return p.stem.replace("_", " ")
