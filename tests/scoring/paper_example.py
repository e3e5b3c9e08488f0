"""The sentence pair of Cohn, Callison-Burch & Lapata (2008), Figure 2, rebuilt from Table 1.

Table 1 lists each word pair with annotator A's and B's link type (S sure, P possible, – none).
"""

from __future__ import annotations

from scoring.alignment.links import Alignment

SOURCE_TEXT = "they discussed the aspects in detail and reached an extensive agreement ."
TARGET_TEXT = "both parties discussed the specific issues and arrived at a general consensus ."
SOURCE = SOURCE_TEXT.split(" ")
TARGET = TARGET_TEXT.split(" ")

# (source word, target word, A's type, B's type) — Table 1, row by row.
TABLE_1 = [
    ("they", "both", "-", "P"),
    ("they", "parties", "P", "P"),
    ("discussed", "discussed", "S", "S"),
    ("the", "the", "S", "S"),
    ("aspects", "specific", "P", "-"),
    ("in", "specific", "P", "P"),
    ("detail", "specific", "P", "P"),
    ("aspects", "issues", "P", "S"),
    ("in", "issues", "P", "-"),
    ("detail", "issues", "P", "-"),
    ("and", "and", "S", "S"),
    ("reached", "arrived", "S", "S"),
    ("reached", "at", "-", "S"),
    ("an", "a", "S", "S"),
    ("extensive", "general", "S", "P"),
    ("agreement", "consensus", "S", "S"),
    (".", ".", "S", "S"),
]


def _alignment(column: int) -> Alignment:
    sure, possible = [], []
    for row in TABLE_1:
        link = (SOURCE.index(row[0]), TARGET.index(row[1]))
        if row[column] == "S":
            sure.append(link)
        elif row[column] == "P":
            possible.append(link)
    return Alignment.from_links(len(SOURCE), len(TARGET), sure, possible)


ANNOTATOR_A = _alignment(2)
ANNOTATOR_B = _alignment(3)
